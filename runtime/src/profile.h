/* profile.h - the profiler's side of tfcc_rt_invoke_dims and the contexts
 * (internal to the runtime).
 *
 * src/profile.c records spans (one per entry call, one per kernel or fused
 * loop nest the compiler wrapped in tfcc_rt_profile_begin / _end) and writes
 * them as a Chrome trace; a bare-metal runtime has no clock or files and
 * compiles these to nothing (src/profile_freestanding.c holds its
 * <prefix>_profile_* functions).
 */
#ifndef TFCC_RT_PROFILE_H_
#define TFCC_RT_PROFILE_H_

#include "tfcc/tfcc_runtime.h"

#if TFCC_RT_FREESTANDING
#define tfcc_rt_profile_call_begin(ctx, entry) ((void)(ctx))
#define tfcc_rt_profile_call_end(ctx, batch) ((void)(ctx))
#define tfcc_rt_profile_from_env(ctx) ((void)(ctx))
#define tfcc_rt_profile_release(ctx) ((void)(ctx))
#else
/* Before a call's kernel: makes the context's profile (if any) the one this
 * thread's generated code records into, and notes the call's start. */
void tfcc_rt_profile_call_begin(tfcc_context* ctx, const char* entry);
/* After it: records the call's span (named by its entry) and detaches. */
void tfcc_rt_profile_call_end(tfcc_context* ctx, int64_t batch);
/* At context creation: starts profiling when TFCC_PROFILE names a file. */
void tfcc_rt_profile_from_env(tfcc_context* ctx);
/* At context destruction: writes the TFCC_PROFILE trace, frees the record. */
void tfcc_rt_profile_release(tfcc_context* ctx);
#endif

#endif /* TFCC_RT_PROFILE_H_ */
