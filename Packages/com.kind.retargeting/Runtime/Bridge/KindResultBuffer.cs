// update's output without C# garbage in PuerTS's reflection JsEnv (the Editor, Mono players, IL2CPP
// players with PUERTS_DISABLE_IL2CPP_OPTIMIZATION, iOS unless PUERTS_IL2CPP_OPTIMIZATION is defined).
//
// Where the garbage came from (PuerTS Unity_v2.2.3, Runtime/Src/Default): a delegate bound to a JS
// function returning an ArrayBuffer reads its result with StaticTranslate<ArrayBuffer>.Get
// (JSType/GenericDelegate.cs, Func<T1, T2, T3, TResult>), which by default is
// PrimitiveTypeTranslate.GetArrayBuffer -> GetValueFromResultImpl.GetArrayBuffer ->
// `new ArrayBuffer(ptr, length)`, i.e. a new ArrayBuffer and a new byte[length] filled by Marshal.Copy on
// every call (Translator/StaticTranslate.cs, Translator/NativeValueApiGeneric.cs, Src/ArrayBuffer.cs).
//
// What this does instead: StaticTranslate<T>.ReplaceDefault is public; Install() replaces the ArrayBuffer
// getter with one that, while armed by Call() around one update call and only for a function result
// (NativeValueApi.GetValueFromResult), copies the bytes PuertsDLL.GetArrayBufferFromResult points at into
// one reused byte[] (grown, never shrunk, when an output is longer) and returns one reused ArrayBuffer.
// Every other ArrayBuffer conversion (not armed, an argument or out value, any other JS function) goes to
// PuerTS's own getter unchanged, so user code sharing the JsEnv keeps fresh objects. The returned object is
// valid until the next Call(): read it at once (KindAvatarDriver copies it into its float[]).
//
// When to install: PuerTS registers its default getters in GenericDelegateFactory's static constructor
// (PrimitiveTypeTranslate.Init()), which runs when the first JsEnv is created; a replacement made before
// then would be overwritten. KindBridge installs right after each `new JsEnv` (also on hot reload).
//
// IL2CPP-optimised JsEnv (Runtime/Src/IL2Cpp, the default IL2CPP player on every platform but iOS): there
// is no StaticTranslate; the native glue builds the result through `ArrayBuffer(IntPtr, int, int)` ("call by
// il2cpp", Src/ArrayBuffer.cs) with no hook to replace, so each update still allocates one ArrayBuffer and
// one byte[] of the output's length (package README "Per-frame cost"). Install() is a no-op there and
// Installed stays false.
//
// Measured, not assumed: tools/puerts-alloc (the real PuerTS C# sources and this file under Mono over a
// stand-in native library; `npm run bench -- puerts-alloc`; test/unity.alloc.mono.test.ts).
//
// PuerTS 3.x (PUERTS_3_OR_NEWER): its reflection flavour (Src/PInvoke) has no StaticTranslate/IGetValueFromJs
// to hook, so Install() is a no-op there too and update's result is PuerTS's own (one allocation per call).
#if !PUERTS_3_OR_NEWER && (PUERTS_DISABLE_IL2CPP_OPTIMIZATION || (!PUERTS_IL2CPP_OPTIMIZATION && UNITY_IPHONE) || !ENABLE_IL2CPP)
#define KIND_REFLECTION_JSENV
#endif
using System;
using System.Runtime.InteropServices;
using Puerts;

namespace KindRetargeting
{
    /// <summary>
    /// One reused output buffer for the bridge's update call (0 B of C# garbage per avatar-frame in PuerTS's
    /// reflection JsEnv). Main thread only, like every PuerTS call.
    /// </summary>
    public static class KindResultBuffer
    {
        static byte[] bytes = new byte[0];
#if KIND_REFLECTION_JSENV
        static readonly ArrayBuffer shared = new ArrayBuffer(null);
        static bool armed;
#endif

        /// <summary>True when the reusing getter is registered (reflection JsEnv only).</summary>
        public static bool Installed { get; private set; }

        /// <summary>Capacity of the reused byte[] in bytes (grows to the longest output seen).</summary>
        public static int Capacity { get { return bytes.Length; } }

        /// <summary>
        /// Registers the reusing ArrayBuffer getter. Call after every new JsEnv (see the file header); a no-op
        /// in the IL2CPP-optimised JsEnv.
        /// </summary>
        public static void Install()
        {
#if KIND_REFLECTION_JSENV
            StaticTranslate<ArrayBuffer>.ReplaceDefault(null, Get);
            Installed = true;
#endif
        }

        /// <summary>Puts PuerTS's own ArrayBuffer getter back (a new ArrayBuffer and byte[] per result).</summary>
        public static void Uninstall()
        {
#if KIND_REFLECTION_JSENV
            StaticTranslate<ArrayBuffer>.ReplaceDefault(null, PrimitiveTypeTranslate.GetArrayBuffer);
            Installed = false;
#endif
        }

        /// <summary>
        /// Calls <paramref name="update"/> once with the reuse armed. Returns the result: the shared
        /// ArrayBuffer (Bytes may be longer than Count; valid until the next call) when installed, else what
        /// PuerTS returns. Exceptions from the call propagate (disarmed first).
        /// </summary>
        public static ArrayBuffer Call(Func<int, ArrayBuffer, float, ArrayBuffer> update, int handle, ArrayBuffer input, float dt)
        {
#if KIND_REFLECTION_JSENV
            armed = true;
            try { return update(handle, input, dt); }
            finally { armed = false; }
#else
            return update(handle, input, dt);
#endif
        }

#if KIND_REFLECTION_JSENV
        static ArrayBuffer Get(int jsEnvIdx, IntPtr isolate, IGetValueFromJs getValueApi, IntPtr holder, bool isByRef)
        {
            if (!armed || getValueApi != NativeValueApi.GetValueFromResult)
                return PrimitiveTypeTranslate.GetArrayBuffer(jsEnvIdx, isolate, getValueApi, holder, isByRef);
            armed = false; // one result per Call
            int length;
            IntPtr ptr = PuertsDLL.GetArrayBufferFromResult(holder, out length);
            if (ptr == IntPtr.Zero) return null; // not an ArrayBuffer: read as "no output" (PuerTS's own getter gives an ArrayBuffer with null Bytes)
            if (length < 0) length = 0;
            if (bytes.Length < length) bytes = new byte[Math.Max(length, bytes.Length * 2)];
            if (length > 0) Marshal.Copy(ptr, bytes, 0, length);
            shared.Bytes = bytes;
            shared.Count = length;
            return shared;
        }
#endif
    }
}
