/* checkpoint_freestanding.c - the checkpoint functions of a bare-metal runtime
 * (TFCC_RT_FREESTANDING, runtime/toolchains/thumbv7em-none-eabihf.cmake), which
 * has no files and no allocator: each refuses, saying so, instead of
 * checkpoint.c's file I/O and malloc'd buffers (docs/embedded.md). */
#include "tfcc/tfcc_runtime.h"

#include <string.h>

static tfcc_status_t no_checkpoints(tfcc_context* ctx) {
  if (ctx) {
    static const char text[] =
        "checkpoints need files and malloc, which this bare-metal runtime "
        "does not have";
    memcpy(ctx->message, text,
           sizeof(text) < sizeof(ctx->message) ? sizeof(text)
                                               : sizeof(ctx->message));
    ctx->message[sizeof(ctx->message) - 1] = 0;
  }
  return TFCC_FAILED_PRECONDITION;
}

tfcc_status_t tfcc_rt_save_checkpoint(const tfcc_model_info* m,
                                      tfcc_context* ctx, const char* path) {
  (void)m;
  (void)path;
  return no_checkpoints(ctx);
}

tfcc_status_t tfcc_rt_load_checkpoint(const tfcc_model_info* m,
                                      tfcc_context* ctx, const char* path) {
  (void)m;
  (void)path;
  return no_checkpoints(ctx);
}

tfcc_status_t tfcc_rt_load_checkpoint_buffer(const tfcc_model_info* m,
                                             tfcc_context* ctx,
                                             const void* data, uint64_t size) {
  (void)m;
  (void)data;
  (void)size;
  return no_checkpoints(ctx);
}
