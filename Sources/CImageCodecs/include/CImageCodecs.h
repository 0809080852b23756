#ifndef CIMAGECODECS_H
#define CIMAGECODECS_H
// C shim over libjpeg-turbo and libpng (error handling through setjmp stays in C).
#include <stddef.h>
#include <stdint.h>
#endif
