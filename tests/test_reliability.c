#include "test.h"

static void suite_reliability(void)
{
}
