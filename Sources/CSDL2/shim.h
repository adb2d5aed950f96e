#ifndef FRAMEFLOW_CSDL2_SHIM_H
#define FRAMEFLOW_CSDL2_SHIM_H
#define SDL_MAIN_HANDLED 1
#include <SDL2/SDL.h>

/* Macros and inline values Swift cannot import. */
static inline Uint32 ff_sdl_init_video(void) { return SDL_INIT_VIDEO; }
static inline int ff_sdl_windowpos_centered(void) { return SDL_WINDOWPOS_CENTERED; }
static inline Uint32 ff_sdl_pixelformat_rgba32(void) { return SDL_PIXELFORMAT_RGBA32; }
static inline Uint32 ff_sdl_pixelformat_bgra32(void) { return SDL_PIXELFORMAT_BGRA32; }
#endif
