#include "test.h"

static void suite_io(void)
{
}
