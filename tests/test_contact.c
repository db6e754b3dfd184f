#include "test.h"

static void suite_contact(void)
{
}
