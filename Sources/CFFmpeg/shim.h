#ifndef FRAMEFLOW_CFFMPEG_SHIM_H
#define FRAMEFLOW_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libavutil/avutil.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/error.h>
#include <libavutil/dict.h>
#include <libswscale/swscale.h>

/* Macros Swift cannot import, re-exported as functions with an ff_ prefix. */
static inline int ff_averror(int e) { return AVERROR(e); }
static inline int ff_averror_eof(void) { return AVERROR_EOF; }
static inline int ff_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t ff_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational ff_time_base_q(void) { return AV_TIME_BASE_Q; }
static inline int ff_error_string(int err, char *buf, size_t size) { return av_strerror(err, buf, size); }
static inline int ff_fmt_nofile(const AVOutputFormat *f) { return (f->flags & AVFMT_NOFILE) != 0; }
static inline int ff_fmt_globalheader(const AVOutputFormat *f) { return (f->flags & AVFMT_GLOBALHEADER) != 0; }
static inline void ff_set_global_header(AVCodecContext *c) { c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER; }
static inline int ff_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int ff_avio_flag_write(void) { return AVIO_FLAG_WRITE; }
static inline int ff_averror_exit(void) { return AVERROR_EXIT; }
static inline int ff_fmt_flag_custom_io(void) { return AVFMT_FLAG_CUSTOM_IO; }

#endif
