// hostkit.h: what a CUDA C++ program of the course gets from it: the inputs of one test case,
// and a place to put its outputs (the same contract as hostkit's Rust crate and Python module).
//
// `runner check` writes each case into a folder (HOSTKIT_CASE): one file per input array, raw
// little-endian elements (`x.f32`, `states.u64`), and `params.txt` with a `name = value` line per
// number. The program reads them through hostkit::Task, does its work on the GPU, and hands its
// results back with Task::write; the runner compares them with its CPU reference. Nothing here
// touches CUDA: the lesson is the program's own. A case that cannot be read ends the program
// with a message that says why (exit code 2).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace hostkit {

// The environment variable that names the case's folder.
inline const char *case_variable() { return "HOSTKIT_CASE"; }

// The file extension that names an element type, as the runner writes and reads it.
template <typename T> struct Suffix;
template <> struct Suffix<float> { static const char *name() { return "f32"; } };
template <> struct Suffix<double> { static const char *name() { return "f64"; } };
template <> struct Suffix<int32_t> { static const char *name() { return "i32"; } };
template <> struct Suffix<uint32_t> { static const char *name() { return "u32"; } };
template <> struct Suffix<uint64_t> { static const char *name() { return "u64"; } };
template <> struct Suffix<uint8_t> { static const char *name() { return "u8"; } };

// Ends the program with a message a student can act on: a case the program cannot read is
// not something it can recover from.
[[noreturn]] inline void fail(const std::string &message) {
    std::fprintf(stderr, "hostkit: %s\n", message.c_str());
    std::exit(2);
}

// How many bytes of [data, data + bytes) still wait for an asynchronous copy from the device, as
// the course's driver knows (0 on any other driver). Asked through the loaded libcuda, never
// loading one: a program that never touched CUDA has nothing in flight.
inline size_t bytes_in_flight(const void *data, size_t bytes) {
    void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (driver == nullptr || bytes == 0) return 0;
    using Ask = size_t (*)(const void *, size_t);
    Ask ask = reinterpret_cast<Ask>(dlsym(driver, "simcudaBytesInFlight"));
    size_t in_flight = ask ? ask(data, bytes) : 0;
    dlclose(driver);
    return in_flight;
}

// One test case: its numbers and the folder its arrays are in.
class Task {
  public:
    // The case `runner check` prepared. Run by hand, without the runner, it says how to run it.
    static Task open() {
        const char *folder = std::getenv(case_variable());
        if (folder == nullptr) {
            fail(std::string("this program reads its inputs from the course: run it with "
                             "`runner check ID` (which builds it, prepares each test case and "
                             "checks the results); ") +
                 case_variable() + " is not set");
        }
        return Task(folder);
    }

    // The case in `folder`.
    explicit Task(std::string folder) : folder_(std::move(folder)) {
        std::ifstream file(folder_ + "/params.txt");
        if (!file) fail("cannot read " + folder_ + "/params.txt");
        std::string line;
        while (std::getline(file, line)) {
            size_t equals = line.find('=');
            if (equals == std::string::npos) continue;
            params_[trim(line.substr(0, equals))] = trim(line.substr(equals + 1));
        }
    }

    // A whole number of the case (n, steps, chunks).
    long long param(const std::string &name) const {
        const std::string &value = text(name);
        char *end = nullptr;
        long long number = std::strtoll(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0') {
            fail("the case's " + name + " = \"" + value + "\" is not a whole number");
        }
        return number;
    }

    // A real number of the case (alpha).
    double real(const std::string &name) const {
        const std::string &value = text(name);
        char *end = nullptr;
        double number = std::strtod(value.c_str(), &end);
        if (value.empty() || *end != '\0') {
            fail("the case's " + name + " = \"" + value + "\" is not a number");
        }
        return number;
    }

    // An input array, of element type T (float, double, int32_t, uint32_t, uint64_t, uint8_t).
    template <typename T> std::vector<T> read(const std::string &name) const {
        std::string path = folder_ + "/" + name + "." + Suffix<T>::name();
        std::ifstream file(path, std::ios::binary);
        if (!file) {
            fail("the case has no " + std::string(Suffix<T>::name()) + " array called \"" +
                 name + "\" (" + path + ")");
        }
        std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                                std::istreambuf_iterator<char>());
        std::vector<T> values(bytes.size() / sizeof(T));
        std::copy(bytes.begin(), bytes.begin() + values.size() * sizeof(T),
                  reinterpret_cast<char *>(values.data()));
        return values;
    }

    // Hands back an output array of n elements for the runner to check.
    template <typename T> void write(const std::string &name, const T *values, size_t n) const {
        size_t bytes = n * sizeof(T);
        if (size_t in_flight = bytes_in_flight(values, bytes)) {
            // Read before the copy into it was waited for: the runner names the mistake.
            std::ofstream marker(folder_ + "/out_" + name + ".in_flight");
            marker << in_flight;
        }
        std::string path = folder_ + "/out_" + name + "." + Suffix<T>::name();
        std::ofstream file(path, std::ios::binary);
        file.write(reinterpret_cast<const char *>(values), static_cast<std::streamsize>(bytes));
        if (!file) fail("cannot write " + path);
    }

    // Hands back an output array for the runner to check.
    template <typename T> void write(const std::string &name, const std::vector<T> &values) const {
        write(name, values.data(), values.size());
    }

  private:
    static std::string trim(const std::string &s) {
        size_t first = s.find_first_not_of(" \t\r");
        if (first == std::string::npos) return "";
        size_t last = s.find_last_not_of(" \t\r");
        return s.substr(first, last - first + 1);
    }

    const std::string &text(const std::string &name) const {
        auto found = params_.find(name);
        if (found == params_.end()) fail("the case has no number called \"" + name + "\"");
        return found->second;
    }

    std::string folder_;
    std::map<std::string, std::string> params_;
};

} // namespace hostkit
