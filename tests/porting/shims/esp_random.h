/* Stand-in for ESP-IDF's esp_random.h (components/esp_hw_support/include/esp_random.h): the two
 * prototypes as the ESP-IDF API reference "Random Number Generation" documents them.  Only for
 * compile checks on the host (tests/test_packaging.py). */
#ifndef ESP_RANDOM_H_SHIM
#define ESP_RANDOM_H_SHIM
#include <stddef.h>
#include <stdint.h>
uint32_t esp_random(void);
void esp_fill_random(void *buf, size_t len);
#endif
