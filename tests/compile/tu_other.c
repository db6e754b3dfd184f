/* compile test: a second translation unit that only uses the declarations */
#include "../../rcloth.h"
int rc_compile_test_other(void) { return rc_status_string(RC_ERR_OUT_OF_MEMORY)[0] == 'o' ? 0 : 1; }
