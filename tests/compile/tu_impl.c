/* compile test: the translation unit that holds the implementation */
#ifndef __cplusplus
#include <complex.h>   /* defines the macro I: the implementation must not use it as a name */
#endif
#define RCLOTH_IMPLEMENTATION
#include "../../rcloth.h"
int rc_compile_test_other(void);
int main(void) { return rc_compile_test_other() == 0 && rc_status_string(RC_OK)[0] == 'o' ? 0 : 1; }
