/* profile_freestanding.c - the profiling functions of a bare-metal runtime:
 * no clock or files, so no profiler (the compiler does not instrument models
 * for these targets; docs/embedded.md).
 */
#include "tfcc/tfcc_runtime.h"

int32_t tfcc_rt_profiling_active = 0;

tfcc_status_t tfcc_rt_profile_start(const tfcc_model_info* m,
                                    tfcc_context* ctx) {
  (void)m;
  if (ctx) ctx->message[0] = '\0';
  return TFCC_FAILED_PRECONDITION;
}

tfcc_status_t tfcc_rt_profile_stop(const tfcc_model_info* m,
                                   tfcc_context* ctx, const char* path) {
  (void)path;
  return tfcc_rt_profile_start(m, ctx);
}

void tfcc_rt_profile_begin(const char* name, const char* kind) {
  (void)name;
  (void)kind;
}

void tfcc_rt_profile_end(void) {}
