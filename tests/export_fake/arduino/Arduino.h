/* Minimal stand-in for the Arduino core, enough to compile the generated
 * example sketch as C++ (tests/test_export.py); not a real core. */
#ifndef ARDUINO_H_STUB
#define ARDUINO_H_STUB
#include <stdint.h>
#include <stddef.h>

class __FlashStringHelper;
#define F(s) (reinterpret_cast<const __FlashStringHelper *>(s))

struct SerialStub {
    void begin(unsigned long) {}
    void print(char) {}
    void print(const char *) {}
    void println(const __FlashStringHelper *) {}
    void println(const char *) {}
};
extern SerialStub Serial;
void delay(unsigned long ms);
#endif
