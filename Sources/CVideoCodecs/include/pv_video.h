// Video files through FFmpeg (Debian's libavformat, libavcodec, libswscale, libavutil): decoding to 32BGRA frames and
// encoding 32BGRA frames to H.264 (libx264) in MP4, MOV or Matroska. Plain C entry points, so that Swift never
// sees FFmpeg's macros and structs.
#ifndef PV_VIDEO_H
#define PV_VIDEO_H

#include <stddef.h>
#include <stdint.h>

typedef struct pv_video_reader pv_video_reader;
typedef struct pv_video_writer pv_video_writer;

/// Opens `path`'s best video stream. On success returns 0 and sets the stored frame size, the average frame rate
/// (frames per second; 0 when unknown), the stream's frame count (0 when the container does not say) and the
/// rotation its display matrix asks for (0, 90, 180 or 270 degrees clockwise). On failure returns a negative value
/// and writes a message to `err`.
int pv_video_open(const char *path, pv_video_reader **out, int *width, int *height, double *fps, int64_t *frames,
                  int *rotation, char *err, size_t errlen);

/// Decodes the next frame into `bgra` (`height` rows of `stride` bytes, 32BGRA) and its presentation time in
/// seconds. Returns 1 for a frame, 0 at the end of the stream, a negative value on error (message in `err`).
int pv_video_next(pv_video_reader *r, uint8_t *bgra, int stride, double *seconds, char *err, size_t errlen);

void pv_video_close(pv_video_reader *r);

/// Starts a video file: the container from `format_path`'s extension (.mp4, .mov, .m4v, .mkv), written to
/// `path` (a temporary name the caller renames once finished). H.264 (libx264, `crf` quality, 4:2:0; 4:4:4
/// when a side is odd), time base 1/90000 s; `rotation` (degrees clockwise, a multiple of 90) goes in the stream's
/// display matrix for players to apply. Returns 0 or a negative value with a message.
int pv_video_writer_open(const char *path, const char *format_path, int width, int height, double fps, int crf,
                         int rotation, pv_video_writer **out, char *err, size_t errlen);

/// Encodes one 32BGRA frame shown at `seconds` (strictly increasing). Returns 0 or a negative value.
int pv_video_writer_add(pv_video_writer *w, const uint8_t *bgra, int stride, double seconds, char *err, size_t errlen);

/// Flushes the encoder, writes the trailer and closes the file. Returns 0 or a negative value.
int pv_video_writer_finish(pv_video_writer *w, char *err, size_t errlen);

/// Frees a writer (finished or not; an unfinished file is left incomplete for the caller to delete).
void pv_video_writer_free(pv_video_writer *w);

/// Whether `path` has an audio stream FFmpeg can read.
int pv_video_has_audio(const char *path);

/// Writes `out_path` (container from `format_path`'s extension) with the video stream of `video_path` and the
/// audio stream of `audio_path`, both copied as they are (no re-encoding), the audio cut at the video's end and
/// timed from its own start. Returns 0, or a negative value with a message (for example when the container
/// cannot hold that audio codec).
int pv_video_mux_audio(const char *video_path, const char *audio_path, const char *out_path, const char *format_path,
                       char *err, size_t errlen);

#endif
