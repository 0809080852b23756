#include "pv_video.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/// FFmpeg's own log (libx264's statistics, decoder warnings) stays quiet: failures come back as messages.
static void quiet(void) { av_log_set_level(AV_LOG_QUIET); }

static void set_error(char *err, size_t errlen, const char *what, int code) {
    if (!err || errlen == 0) return;
    if (code < 0) {
        char reason[AV_ERROR_MAX_STRING_SIZE] = {0};
        av_strerror(code, reason, sizeof reason);
        snprintf(err, errlen, "%s: %s", what, reason);
    } else {
        snprintf(err, errlen, "%s", what);
    }
}

struct pv_video_reader {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVFrame *frame;
    AVPacket *packet;
    struct SwsContext *sws;
    int stream;
    int width, height;
    int draining;  // the demuxer is at its end; the decoder is being flushed
    int finished;
};

void pv_video_close(pv_video_reader *r) {
    if (!r) return;
    sws_freeContext(r->sws);
    av_packet_free(&r->packet);
    av_frame_free(&r->frame);
    avcodec_free_context(&r->codec);
    avformat_close_input(&r->format);
    av_free(r);
}

int pv_video_open(const char *path, pv_video_reader **out, int *width, int *height, double *fps, int64_t *frames,
                  int *rotation, char *err, size_t errlen) {
    *out = NULL;
    quiet();
    pv_video_reader *r = av_mallocz(sizeof *r);
    if (!r) { set_error(err, errlen, "out of memory", 1); return -1; }
    int rc = avformat_open_input(&r->format, path, NULL, NULL);
    if (rc < 0) { set_error(err, errlen, "cannot open the video", rc); pv_video_close(r); return -1; }
    rc = avformat_find_stream_info(r->format, NULL);
    if (rc < 0) { set_error(err, errlen, "cannot read the video's streams", rc); pv_video_close(r); return -1; }
    const AVCodec *decoder = NULL;
    rc = av_find_best_stream(r->format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (rc < 0 || !decoder) { set_error(err, errlen, "the file has no video stream this FFmpeg decodes", rc); pv_video_close(r); return -1; }
    r->stream = rc;
    AVStream *s = r->format->streams[r->stream];
    r->codec = avcodec_alloc_context3(decoder);
    if (!r->codec) { set_error(err, errlen, "out of memory", 1); pv_video_close(r); return -1; }
    rc = avcodec_parameters_to_context(r->codec, s->codecpar);
    if (rc >= 0) rc = avcodec_open2(r->codec, decoder, NULL);
    if (rc < 0) { set_error(err, errlen, "cannot open the video decoder", rc); pv_video_close(r); return -1; }
    r->width = r->codec->width;
    r->height = r->codec->height;
    if (r->width <= 0 || r->height <= 0) { set_error(err, errlen, "the video stream has no frame size", 1); pv_video_close(r); return -1; }
    r->frame = av_frame_alloc();
    r->packet = av_packet_alloc();
    if (!r->frame || !r->packet) { set_error(err, errlen, "out of memory", 1); pv_video_close(r); return -1; }
    *width = r->width;
    *height = r->height;
    AVRational rate = s->avg_frame_rate.num > 0 && s->avg_frame_rate.den > 0 ? s->avg_frame_rate : s->r_frame_rate;
    *fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
    int64_t n = s->nb_frames;
    if (n <= 0 && s->duration > 0 && *fps > 0) n = (int64_t)llround(s->duration * av_q2d(s->time_base) * *fps);
    *frames = n > 0 ? n : 0;
    // The display matrix (phones record upright video as landscape frames plus a rotation): degrees clockwise.
    *rotation = 0;
    const uint8_t *matrix = av_stream_get_side_data(s, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (matrix) {
        double theta = -av_display_rotation_get((const int32_t *)matrix);
        if (isfinite(theta)) {
            int degrees = (int)lround(theta / 90.0) * 90 % 360;
            *rotation = degrees < 0 ? degrees + 360 : degrees;
        }
    }
    *out = r;
    return 0;
}

/// Converts the decoded frame to 32BGRA; the converter is rebuilt when the frame's size or format changes (the
/// output keeps the stream's first size: a frame of another size is scaled to it).
static int convert(pv_video_reader *r, uint8_t *bgra, int stride, char *err, size_t errlen) {
    AVFrame *f = r->frame;
    r->sws = sws_getCachedContext(r->sws, f->width, f->height, (enum AVPixelFormat)f->format, r->width, r->height,
                                  AV_PIX_FMT_BGRA, SWS_BILINEAR, NULL, NULL, NULL);
    if (!r->sws) { set_error(err, errlen, "cannot convert the video's pixel format", 1); return -1; }
    uint8_t *planes[4] = {bgra, NULL, NULL, NULL};
    int strides[4] = {stride, 0, 0, 0};
    sws_scale(r->sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height, planes, strides);
    return 0;
}

int pv_video_next(pv_video_reader *r, uint8_t *bgra, int stride, double *seconds, char *err, size_t errlen) {
    if (r->finished) return 0;
    for (;;) {
        int rc = avcodec_receive_frame(r->codec, r->frame);
        if (rc == 0) {
            AVStream *s = r->format->streams[r->stream];
            int64_t pts = r->frame->best_effort_timestamp;
            int64_t start = s->start_time == AV_NOPTS_VALUE ? 0 : s->start_time;
            *seconds = pts == AV_NOPTS_VALUE ? 0 : (double)(pts - start) * av_q2d(s->time_base);
            rc = convert(r, bgra, stride, err, errlen);
            av_frame_unref(r->frame);
            return rc < 0 ? -1 : 1;
        }
        if (rc == AVERROR_EOF) { r->finished = 1; return 0; }
        if (rc != AVERROR(EAGAIN)) { set_error(err, errlen, "cannot decode the video", rc); return -1; }
        if (r->draining) { r->finished = 1; return 0; }
        // The decoder wants input: the next packet of the video stream, or the end.
        for (;;) {
            rc = av_read_frame(r->format, r->packet);
            if (rc == AVERROR_EOF) {
                r->draining = 1;
                rc = avcodec_send_packet(r->codec, NULL);
                if (rc < 0 && rc != AVERROR_EOF) { set_error(err, errlen, "cannot flush the video decoder", rc); return -1; }
                break;
            }
            if (rc < 0) { set_error(err, errlen, "cannot read the video file", rc); return -1; }
            if (r->packet->stream_index != r->stream) { av_packet_unref(r->packet); continue; }
            rc = avcodec_send_packet(r->codec, r->packet);
            av_packet_unref(r->packet);
            if (rc < 0 && rc != AVERROR(EAGAIN)) { set_error(err, errlen, "cannot decode the video", rc); return -1; }
            break;
        }
    }
}

struct pv_video_writer {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    AVFrame *frame;
    AVPacket *packet;
    struct SwsContext *sws;
    int width, height;
    int64_t last_pts;
};

void pv_video_writer_free(pv_video_writer *w) {
    if (!w) return;
    sws_freeContext(w->sws);
    av_packet_free(&w->packet);
    av_frame_free(&w->frame);
    avcodec_free_context(&w->codec);
    if (w->format) {
        if (w->format->pb) avio_closep(&w->format->pb);
        avformat_free_context(w->format);
    }
    av_free(w);
}

int pv_video_writer_open(const char *path, const char *format_path, int width, int height, double fps, int crf,
                         int rotation, pv_video_writer **out, char *err, size_t errlen) {
    *out = NULL;
    quiet();
    if (width <= 0 || height <= 0) { set_error(err, errlen, "a video frame needs a positive size", 1); return -1; }
    pv_video_writer *w = av_mallocz(sizeof *w);
    if (!w) { set_error(err, errlen, "out of memory", 1); return -1; }
    w->width = width;
    w->height = height;
    w->last_pts = INT64_MIN;
    int rc = avformat_alloc_output_context2(&w->format, NULL, NULL, format_path);
    if (rc < 0 || !w->format) { set_error(err, errlen, "no video container for that file name", rc); pv_video_writer_free(w); return -1; }
    const AVCodec *encoder = avcodec_find_encoder_by_name("libx264");
    if (!encoder) encoder = avcodec_find_encoder(AV_CODEC_ID_H264);
    if (!encoder) { set_error(err, errlen, "this FFmpeg has no H.264 encoder", 1); pv_video_writer_free(w); return -1; }
    w->stream = avformat_new_stream(w->format, NULL);
    w->codec = avcodec_alloc_context3(encoder);
    w->frame = av_frame_alloc();
    w->packet = av_packet_alloc();
    if (!w->stream || !w->codec || !w->frame || !w->packet) { set_error(err, errlen, "out of memory", 1); pv_video_writer_free(w); return -1; }
    int odd = (width | height) & 1;
    w->codec->width = width;
    w->codec->height = height;
    w->codec->pix_fmt = odd ? AV_PIX_FMT_YUV444P : AV_PIX_FMT_YUV420P;
    w->codec->time_base = (AVRational){1, 90000};
    if (fps > 0) w->codec->framerate = av_d2q(fps, 100000);
    w->codec->thread_count = 0;  // the encoder's own choice
    if (w->format->oformat->flags & AVFMT_GLOBALHEADER) w->codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    char quality[16];
    snprintf(quality, sizeof quality, "%d", crf);
    av_opt_set(w->codec->priv_data, "crf", quality, 0);
    av_opt_set(w->codec->priv_data, "preset", "veryfast", 0);
    rc = avcodec_open2(w->codec, encoder, NULL);
    if (rc < 0) { set_error(err, errlen, "cannot open the H.264 encoder", rc); pv_video_writer_free(w); return -1; }
    rc = avcodec_parameters_from_context(w->stream->codecpar, w->codec);
    if (rc < 0) { set_error(err, errlen, "cannot set up the video stream", rc); pv_video_writer_free(w); return -1; }
    w->stream->time_base = w->codec->time_base;
    if (fps > 0) w->stream->avg_frame_rate = w->codec->framerate;
    if (rotation % 360 != 0) {
        int32_t *matrix = (int32_t *)av_stream_new_side_data(w->stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
        if (!matrix) { set_error(err, errlen, "out of memory", 1); pv_video_writer_free(w); return -1; }
        av_display_rotation_set(matrix, (double)rotation);  // clockwise, as FFmpeg reads it back (minus the counterclockwise angle)
    }
    rc = avio_open(&w->format->pb, path, AVIO_FLAG_WRITE);
    if (rc < 0) { set_error(err, errlen, "cannot write the video file", rc); pv_video_writer_free(w); return -1; }
    rc = avformat_write_header(w->format, NULL);
    if (rc < 0) { set_error(err, errlen, "cannot write the video header", rc); pv_video_writer_free(w); return -1; }
    w->frame->format = w->codec->pix_fmt;
    w->frame->width = width;
    w->frame->height = height;
    rc = av_frame_get_buffer(w->frame, 0);
    if (rc < 0) { set_error(err, errlen, "out of memory", rc); pv_video_writer_free(w); return -1; }
    w->sws = sws_getContext(width, height, AV_PIX_FMT_BGRA, width, height, w->codec->pix_fmt, SWS_BILINEAR, NULL, NULL, NULL);
    if (!w->sws) { set_error(err, errlen, "cannot convert frames for the encoder", 1); pv_video_writer_free(w); return -1; }
    *out = w;
    return 0;
}

/// Sends `frame` (NULL to flush) and writes every packet the encoder gives back.
static int drain(pv_video_writer *w, AVFrame *frame, char *err, size_t errlen) {
    int rc = avcodec_send_frame(w->codec, frame);
    if (rc < 0 && !(frame == NULL && rc == AVERROR_EOF)) { set_error(err, errlen, "cannot encode the video", rc); return -1; }
    for (;;) {
        rc = avcodec_receive_packet(w->codec, w->packet);
        if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return 0;
        if (rc < 0) { set_error(err, errlen, "cannot encode the video", rc); return -1; }
        av_packet_rescale_ts(w->packet, w->codec->time_base, w->stream->time_base);
        w->packet->stream_index = w->stream->index;
        rc = av_interleaved_write_frame(w->format, w->packet);
        if (rc < 0) { set_error(err, errlen, "cannot write the video file", rc); return -1; }
    }
}

int pv_video_writer_add(pv_video_writer *w, const uint8_t *bgra, int stride, double seconds, char *err, size_t errlen) {
    int64_t pts = llround(seconds * 90000.0);
    if (!isfinite(seconds) || pts <= w->last_pts) { set_error(err, errlen, "video frame times must increase", 1); return -1; }
    int rc = av_frame_make_writable(w->frame);
    if (rc < 0) { set_error(err, errlen, "out of memory", rc); return -1; }
    const uint8_t *planes[4] = {bgra, NULL, NULL, NULL};
    int strides[4] = {stride, 0, 0, 0};
    sws_scale(w->sws, planes, strides, 0, w->height, w->frame->data, w->frame->linesize);
    w->frame->pts = pts;
    w->last_pts = pts;
    return drain(w, w->frame, err, errlen);
}

int pv_video_writer_finish(pv_video_writer *w, char *err, size_t errlen) {
    if (drain(w, NULL, err, errlen) < 0) return -1;
    int rc = av_write_trailer(w->format);
    if (rc < 0) { set_error(err, errlen, "cannot finish the video file", rc); return -1; }
    rc = avio_closep(&w->format->pb);
    if (rc < 0) { set_error(err, errlen, "cannot close the video file", rc); return -1; }
    return 0;
}

/// Opens an input file for remuxing.
static int open_input(const char *path, AVFormatContext **ctx, char *err, size_t errlen) {
    int rc = avformat_open_input(ctx, path, NULL, NULL);
    if (rc < 0) { set_error(err, errlen, "cannot open a file to copy from", rc); return -1; }
    rc = avformat_find_stream_info(*ctx, NULL);
    if (rc < 0) { set_error(err, errlen, "cannot read a file's streams", rc); return -1; }
    return 0;
}

int pv_video_has_audio(const char *path) {
    quiet();
    AVFormatContext *ctx = NULL;
    if (avformat_open_input(&ctx, path, NULL, NULL) < 0) return 0;
    int found = avformat_find_stream_info(ctx, NULL) >= 0 && av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0) >= 0;
    avformat_close_input(&ctx);
    return found;
}

int pv_video_mux_audio(const char *video_path, const char *audio_path, const char *out_path, const char *format_path,
                       char *err, size_t errlen) {
    quiet();
    AVFormatContext *vin = NULL, *ain = NULL, *out = NULL;
    AVPacket *packet = av_packet_alloc();
    int result = -1, rc;
    if (!packet) { set_error(err, errlen, "out of memory", 1); goto done; }
    if (open_input(video_path, &vin, err, errlen) < 0 || open_input(audio_path, &ain, err, errlen) < 0) goto done;
    int vs = av_find_best_stream(vin, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    int as = av_find_best_stream(ain, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
    if (vs < 0 || as < 0) { set_error(err, errlen, "no video or no audio stream to copy", 1); goto done; }
    rc = avformat_alloc_output_context2(&out, NULL, NULL, format_path);
    if (rc < 0 || !out) { set_error(err, errlen, "no container for that file name", rc); goto done; }
    AVStream *ov = avformat_new_stream(out, NULL), *oa = avformat_new_stream(out, NULL);
    if (!ov || !oa) { set_error(err, errlen, "out of memory", 1); goto done; }
    if ((rc = avcodec_parameters_copy(ov->codecpar, vin->streams[vs]->codecpar)) < 0
        || (rc = avcodec_parameters_copy(oa->codecpar, ain->streams[as]->codecpar)) < 0) {
        set_error(err, errlen, "cannot copy the streams' parameters", rc);
        goto done;
    }
    ov->codecpar->codec_tag = 0;
    oa->codecpar->codec_tag = 0;
    ov->time_base = vin->streams[vs]->time_base;
    oa->time_base = ain->streams[as]->time_base;
    ov->avg_frame_rate = vin->streams[vs]->avg_frame_rate;
    rc = avio_open(&out->pb, out_path, AVIO_FLAG_WRITE);
    if (rc < 0) { set_error(err, errlen, "cannot write the video file", rc); goto done; }
    rc = avformat_write_header(out, NULL);
    if (rc < 0) { set_error(err, errlen, "the container cannot hold this audio", rc); goto done; }
    // The audio up to the video's end, interleaved by time (the muxer orders what it is given).
    double video_end = 0;
    {
        AVStream *s = vin->streams[vs];
        if (s->duration > 0) video_end = s->duration * av_q2d(s->time_base);
        else if (vin->duration > 0) video_end = vin->duration / (double)AV_TIME_BASE;
    }
    int64_t audio_start = ain->streams[as]->start_time == AV_NOPTS_VALUE ? 0 : ain->streams[as]->start_time;
    int video_done = 0, audio_done = 0;
    double video_at = 0, audio_at = 0;
    while (!video_done || !audio_done) {
        int take_video = !video_done && (audio_done || video_at <= audio_at);
        AVFormatContext *in = take_video ? vin : ain;
        int want = take_video ? vs : as;
        rc = av_read_frame(in, packet);
        if (rc == AVERROR_EOF) { if (take_video) video_done = 1; else audio_done = 1; continue; }
        if (rc < 0) { set_error(err, errlen, "cannot read a file to copy from", rc); goto done; }
        if (packet->stream_index != want) { av_packet_unref(packet); continue; }
        AVStream *is = in->streams[want], *os = take_video ? ov : oa;
        if (!take_video) {
            // Audio times from the audio stream's start, so it lines up with the video's first frame at 0.
            if (packet->pts != AV_NOPTS_VALUE) packet->pts -= audio_start;
            if (packet->dts != AV_NOPTS_VALUE) packet->dts -= audio_start;
            double t = packet->pts == AV_NOPTS_VALUE ? audio_at : packet->pts * av_q2d(is->time_base);
            if (video_end > 0 && t >= video_end) { av_packet_unref(packet); audio_done = 1; continue; }
            if (t < 0) { av_packet_unref(packet); continue; }
            audio_at = t;
        } else if (packet->dts != AV_NOPTS_VALUE) {
            video_at = packet->dts * av_q2d(is->time_base);
        }
        av_packet_rescale_ts(packet, is->time_base, os->time_base);
        packet->stream_index = os->index;
        packet->pos = -1;
        rc = av_interleaved_write_frame(out, packet);
        if (rc < 0) { set_error(err, errlen, "cannot write the video file", rc); goto done; }
    }
    rc = av_write_trailer(out);
    if (rc < 0) { set_error(err, errlen, "cannot finish the video file", rc); goto done; }
    result = 0;
done:
    av_packet_free(&packet);
    if (out) {
        if (out->pb) avio_closep(&out->pb);
        avformat_free_context(out);
    }
    avformat_close_input(&vin);
    avformat_close_input(&ain);
    return result;
}
