// What NVIDIA's driver answers to cuGetProcAddress for each entry point with several forms, at
// each CUDA version where a form begins and one below it: the symbol of the address it gives
// (dladdr), the result and the status. The simulated driver's table (driver/src/proc_address/
// versions.rs) is checked against these lines. Reads "name version ..." lines on stdin.
// Built and run on the device machine by proc_address.sh.
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    cuInit(0);
    char name[256];
    int version;
    while (scanf("%255s %d", name, &version) == 2) {
        void *pfn = NULL;
        CUdriverProcAddressQueryResult status = -1;
        CUresult r = cuGetProcAddress_v2(name, &pfn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
        Dl_info info;
        const char *symbol = "-";
        if (pfn && dladdr(pfn, &info) && info.dli_sname) {
            symbol = info.dli_sname;
        }
        printf("%s %d -> %s (result %d, status %d)\n", name, version, symbol, (int)r, (int)status);
    }
    return 0;
}
