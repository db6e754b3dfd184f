/* compile test: everything private to this file via RCLOTH_STATIC, included twice */
#define RCLOTH_STATIC
#define RCLOTH_IMPLEMENTATION
#include "../../rcloth.h"
#include "../../rcloth.h"
int main(void) { return rc_status_string(RC_OK)[0] == 'o' ? 0 : 1; }
