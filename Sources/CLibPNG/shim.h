// libpng 1.6 from Debian's libpng-dev.
#include <png.h>
