/*
 * A stand-in for PuerTS's native plugin (libpuerts), for measuring the MANAGED side of the bridge under
 * Mono: the real PuerTS 2.2.3 C# runtime (JsEnv, GenericDelegate, StaticTranslate, PuertsDLL's P/Invoke
 * declarations) and the package's KindBridge run unchanged; only the JavaScript engine behind the C ABI is
 * replaced by this table. No JavaScript runs. It answers exactly what the bridge asks:
 *   - GetApiLevel 35 (JsEnv's libVersionExpect), one V8 backend (GetLibBackend 0), a non-null isolate;
 *   - the module executor (function 1) returns one JS object for any specifier;
 *   - the object-value getter (function 2) returns, for the last string pushed, a number for
 *     "LAYOUT_VERSION" (KindFake_SetLayoutVersion) or a function for one of the bundle's exports;
 *   - "update" returns an ArrayBuffer whose bytes are the ones KindFake_SetUpdateResult gave (the bytes a
 *     real update would return); its ArrayBuffer argument is copied, as V8 copies it into a JS ArrayBuffer;
 *   - "createHub" returns 1; "apiVersion", "command", "remote", "exportState" return strings;
 *   - "outputCopy" (not a bundle export: for the harness) returns the same bytes as update, so the
 *     harness can check that ArrayBuffer results of other functions still arrive as fresh objects.
 * Every other export of PuertsDLL.cs is generated (stubs.h, by tools/puerts-alloc.mjs) to return 0.
 * Signatures follow PuertsDLL.cs (C# bool is marshalled as a 4-byte int, string as UTF-8 char*).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

enum { T_UNDEF = 1, T_NUMBER = 4, T_STRING = 8, T_JSOBJECT = 64, T_FUNCTION = 256, T_ARRAYBUFFER = 1024 };

typedef struct {
    int type;
    double number;
    const char *string;
    void *function;
    void *object;
    const unsigned char *bytes;
    int length;
} Result;

static const char *EXPORTS[] = { "apiVersion", "createHub", "destroyHub", "update", "command", "remote",
                                 "exportState", "importState", "outputCopy" };
#define N_EXPORTS ((int)(sizeof(EXPORTS) / sizeof(EXPORTS[0])))
#define FN_EXECUTOR ((void *)(uintptr_t)1)
#define FN_GETTER ((void *)(uintptr_t)2)
#define FN_EXPORT(i) ((void *)(uintptr_t)(0x100 + (i)))
#define ISOLATE ((void *)(uintptr_t)0x1000)
#define MODULE_OBJECT ((void *)(uintptr_t)0x2000)

static Result result;
static char lastString[256];
static unsigned char *updateBytes;
static int updateLength;
static unsigned char *inputCopy;
static int inputCapacity, inputLength;
static int layoutVersion = 1;
static long long updateCalls;

EXPORT void KindFake_SetUpdateResult(const unsigned char *bytes, int length) {
    free(updateBytes);
    updateBytes = (unsigned char *)malloc(length > 0 ? length : 1);
    memcpy(updateBytes, bytes, length);
    updateLength = length;
}
EXPORT void KindFake_SetLayoutVersion(int v) { layoutVersion = v; }
EXPORT long long KindFake_UpdateCalls(void) { return updateCalls; }
EXPORT int KindFake_LastInputLength(void) { return inputLength; }
/* The i-th float of the last ArrayBuffer argument (what "JavaScript" received). */
EXPORT float KindFake_InputFloat(int i) {
    float f = 0;
    if (i >= 0 && 4 * i + 4 <= inputLength) memcpy(&f, inputCopy + 4 * i, 4);
    return f;
}

EXPORT int GetApiLevel(void) { return 35; }
EXPORT int GetLibVersion(void) { return 35; }
EXPORT int GetLibBackend(void *isolate) { (void)isolate; return 0; }
EXPORT void *CreateJSEngine(int backend) { (void)backend; return ISOLATE; }
EXPORT void *CreateJSEngineWithExternalEnv(int backend, void *rt, void *ctx) { (void)backend; (void)rt; (void)ctx; return ISOLATE; }
EXPORT void *GetJSObjectValueGetter(void *isolate) { (void)isolate; return FN_GETTER; }
EXPORT void *GetModuleExecutor(void *isolate) { (void)isolate; return FN_EXECUTOR; }

EXPORT void PushStringForJSFunction(void *function, const char *s) {
    (void)function;
    strncpy(lastString, s ? s : "", sizeof lastString - 1);
    lastString[sizeof lastString - 1] = 0;
}
EXPORT void PushArrayBufferForJSFunction(void *function, const unsigned char *bytes, int length) {
    (void)function;
    if (length > inputCapacity) {
        inputCopy = (unsigned char *)realloc(inputCopy, length);
        inputCapacity = length;
    }
    if (length > 0 && bytes) memcpy(inputCopy, bytes, length);
    inputLength = length;
}

static void set(int type) {
    memset(&result, 0, sizeof result);
    result.type = type;
}

EXPORT void *InvokeJSFunction(void *function, int hasResult) {
    (void)hasResult;
    if (function == FN_EXECUTOR) {
        set(T_JSOBJECT);
        result.object = MODULE_OBJECT;
    } else if (function == FN_GETTER) {
        set(T_UNDEF);
        if (strcmp(lastString, "LAYOUT_VERSION") == 0) {
            set(T_NUMBER);
            result.number = layoutVersion;
        }
        for (int i = 0; i < N_EXPORTS; i++)
            if (strcmp(lastString, EXPORTS[i]) == 0) {
                set(T_FUNCTION);
                result.function = FN_EXPORT(i);
            }
    } else {
        int i = (int)((uintptr_t)function - 0x100);
        const char *name = i >= 0 && i < N_EXPORTS ? EXPORTS[i] : "";
        set(T_UNDEF);
        if (strcmp(name, "update") == 0 || strcmp(name, "outputCopy") == 0) {
            if (strcmp(name, "update") == 0) updateCalls++;
            set(T_ARRAYBUFFER);
            result.bytes = updateBytes;
            result.length = updateLength;
        } else if (strcmp(name, "createHub") == 0) {
            set(T_NUMBER);
            result.number = 1;
        } else if (strcmp(name, "apiVersion") == 0) {
            set(T_STRING);
            result.string = "fake-puerts";
        } else if (strcmp(name, "command") == 0 || strcmp(name, "remote") == 0 || strcmp(name, "exportState") == 0) {
            set(T_STRING);
            result.string = "{\"ok\":true}";
        }
    }
    return &result;
}

EXPORT int GetResultType(Result *r) { return r->type; }
EXPORT double GetNumberFromResult(Result *r) { return r->number; }
EXPORT int GetBooleanFromResult(Result *r) { return r->number != 0; }
EXPORT void *GetFunctionFromResult(Result *r) { return r->function; }
EXPORT void *GetJSObjectFromResult(Result *r) { return r->object; }
EXPORT const char *GetStringFromResult(Result *r, int *len) {
    *len = r->string ? (int)strlen(r->string) : 0;
    return r->string;
}
EXPORT const unsigned char *GetArrayBufferFromResult(Result *r, int *length) {
    if (r->type != T_ARRAYBUFFER) { *length = 0; return 0; }
    *length = r->length;
    return r->bytes;
}
EXPORT void *GetLastExceptionInfo(void *isolate, int *len) { (void)isolate; *len = 0; return 0; }
EXPORT void *GetFunctionLastExceptionInfo(void *function, int *len) { (void)function; *len = 0; return 0; }
EXPORT void *GetJSStackTrace(void *isolate, int *len) { (void)isolate; *len = 0; return 0; }
EXPORT void *GetStringFromValue(void *isolate, void *value, int *len, int isByRef) { (void)isolate; (void)value; (void)isByRef; *len = 0; return 0; }
EXPORT void *GetArrayBufferFromValue(void *isolate, void *value, int *len, int isOut) { (void)isolate; (void)value; (void)isOut; *len = 0; return 0; }

#include "stubs.h"
