// libjpeg-turbo from Debian's libjpeg62-turbo-dev. jpeglib.h needs stdio.h first.
#include <stdio.h>
#include <jpeglib.h>
