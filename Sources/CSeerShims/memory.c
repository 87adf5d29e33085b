#include "CSeerShims.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int seer_keep_freed_buffers(size_t largestBlock, size_t keptFree) {
#if defined(__GLIBC__)
    int a = mallopt(M_MMAP_THRESHOLD, (int)largestBlock);
    int b = mallopt(M_TRIM_THRESHOLD, (int)keptFree);
    return a == 1 && b == 1;
#else
    (void)largestBlock;
    (void)keptFree;
    return 0;
#endif
}
