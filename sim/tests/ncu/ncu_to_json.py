#!/usr/bin/env python3
"""Turn the CSV of `ncu --csv --metrics ...` into ncu_figures.json.

ncu_to_json.py CSV CASES_TOML OUT_JSON --device D --driver V --ncu-version V [--command C] [--more]

--more also records the keys of MORE (warp instructions, global and shared atomics).

The profiled kernels are matched to the cases of cases.toml in launch order (the harness launches
each case once, in file order, and nothing else); each kernel's name is checked against the case.
"""
import argparse
import csv
import datetime
import json
import sys
import tomllib

# key in ncu_figures.json -> Nsight Compute metric
METRICS = {
    "global_load_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "global_load_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global_store_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "global_store_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "shared_load_requests": "smsp__sass_inst_executed_op_shared_ld.sum",
    "shared_load_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_load_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "shared_store_requests": "smsp__sass_inst_executed_op_shared_st.sum",
    "shared_store_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "shared_store_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
}

# With --more: key -> metric (null in the JSON where this ncu does not know the metric).
MORE = {
    "warp_instructions": "smsp__inst_executed.sum",
    "global_atom_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "global_atom_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "global_red_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "global_red_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "shared_atomic_requests": "smsp__sass_inst_executed_op_shared_atom.sum",
    "shared_atomic_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "shared_atomic_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
}


def number(text):
    """ncu prints counts with thousands separators ("1,048,576") in some versions."""
    text = text.strip().replace(",", "")
    try:
        value = float(text)
    except ValueError:  # "n/a"
        return None
    return int(value) if value.is_integer() else value


def read_rows(path):
    """Rows of the CSV table, skipping ==PROF== lines and anything else before the header."""
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
    if start is None:
        sys.exit(f"{path}: no ncu CSV header (a line starting with \"ID\",) found")
    table = [l for l in lines[start:] if l.startswith('"')]
    return list(csv.DictReader(table))


def kernels_in_order(rows):
    """[(kernel name, {metric: value})] by profiling ID; handles the long (one metric a row) and
    the wide (one kernel a row, metrics as columns) layouts."""
    kernels = {}
    for row in rows:
        kid = int(row["ID"])
        name = row.get("Kernel Name", "")
        entry = kernels.setdefault(kid, (name, {}))
        if "Metric Name" in row and "Metric Value" in row:
            entry[1][row["Metric Name"]] = number(row["Metric Value"])
        else:
            for metric in list(METRICS.values()) + list(MORE.values()):
                if metric in row:
                    entry[1][metric] = number(row[metric])
    return [kernels[k] for k in sorted(kernels)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("csv")
    p.add_argument("cases")
    p.add_argument("out")
    p.add_argument("--device", required=True)
    p.add_argument("--driver", default="")
    p.add_argument("--ncu-version", required=True)
    p.add_argument("--cuda-version", default="")
    p.add_argument("--command", default="")
    p.add_argument("--more", action="store_true")
    a = p.parse_args()
    keys = dict(METRICS, **(MORE if a.more else {}))

    with open(a.cases, "rb") as f:
        cases = tomllib.load(f)["case"]
    kernel_names = {c["kernel"] for c in cases}
    # Keep only our kernels (a driver-internal kernel, should one appear, is not a case).
    profiled = [(n, m) for n, m in kernels_in_order(read_rows(a.csv))
                if n.split("(")[0].strip() in kernel_names]
    if len(profiled) != len(cases):
        sys.exit(f"{a.csv}: {len(profiled)} profiled kernels for {len(cases)} cases")

    figures = {}
    for case, (name, metrics) in zip(cases, profiled):
        if name.split("(")[0].strip() != case["kernel"]:
            sys.exit(f"case {case['name']}: expected kernel {case['kernel']}, profiled {name}")
        missing = [m for m in keys.values() if m not in metrics]
        if missing:
            print(f"WARNING: case {case['name']}: no value for {', '.join(missing)}", file=sys.stderr)
        figures[case["name"]] = {"kernel": case["kernel"],
                                 **{key: metrics.get(m) for key, m in keys.items()}}

    doc = {
        "device": a.device,
        "driver": a.driver,
        "cuda_version": a.cuda_version,
        "ncu_version": a.ncu_version,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": a.command,
        "metrics": keys,
        "cases": figures,
    }
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")

    short = ["ld_req", "ld_sec", "st_req", "st_sec", "shld_inst", "shld_wf", "shld_bc",
             "shst_inst", "shst_wf", "shst_bc", "inst", "atom_req", "atom_sec", "red_req", "red_sec",
             "shatom", "shatom_wf", "shatom_bc"][:len(keys)]
    print(f"{'case':<26}" + "".join(f"{s:>10}" for s in short))
    for name, fig in figures.items():
        print(f"{name:<26}" + "".join(f"{str(fig[k]):>10}" for k in keys))


if __name__ == "__main__":
    main()
