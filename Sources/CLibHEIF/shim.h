// libheif 1.15 from Debian's libheif-dev (header under the multiarch include folder,
// found through pkg-config).
#include <libheif/heif.h>
