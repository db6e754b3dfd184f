/* compile test: the translation unit that holds the implementation */
#define RCLOTH_IMPLEMENTATION
#include "../../rcloth.h"
int rc_compile_test_other(void);
int main(void) { return rc_compile_test_other() == 0 && rc_status_string(RC_OK)[0] == 'o' ? 0 : 1; }
