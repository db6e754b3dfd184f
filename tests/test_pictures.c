#include "test.h"

static void suite_pictures(void)
{
}
