// libwebp from Debian's libwebp-dev.
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
