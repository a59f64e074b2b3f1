/* summary_crc32c.c - the runtime's CRC-32C (crc32c.c) under a name of the
 * summary library's own, tfcc_summary_crc32c: a program links
 * libtfcc_summary.a beside model archives whose runtime defines
 * tfcc_rt_crc32c. */
#define tfcc_rt_crc32c tfcc_summary_crc32c
#include "crc32c.c"
