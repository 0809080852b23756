// FFmpeg 5.1 from Debian's libavformat-dev, libavcodec-dev, libswscale-dev, libavutil-dev.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/imgutils.h>
