#include "test.h"

static void suite_adaptive(void)
{
}
