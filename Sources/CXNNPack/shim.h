// XNNPACK and pthreadpool from Debian's libxnnpack-dev / libpthreadpool-dev.
// xnnpack.h includes pthreadpool.h, so both packages are needed to build.
#include <xnnpack.h>
#include <pthreadpool.h>
