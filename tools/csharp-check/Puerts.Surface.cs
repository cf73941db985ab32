// =====================================================================================================
// COMPILE-CHECK SURFACE — NOT A RUNTIME. NOTHING HERE RUNS.
//
// A hand-declared subset of PuerTS 2.2.x (package com.tencent.puerts.core, assembly
// "com.tencent.puerts.core", namespace Puerts) holding exactly what Packages/com.kind.retargeting
// uses. Signatures copied from the Tencent/puerts sources (tag Unity_v2.2.x), paths below are in that
// repository. Stub bodies.
// =====================================================================================================
#pragma warning disable 0067, 0649, 0169, 0414
using System;

namespace Puerts
{
    // unity/Assets/core/upm/Runtime/Src/Loader.cs
    public interface ILoader
    {
        bool FileExists(string filepath);
        string ReadFile(string filepath, out string debugpath);
    }

    // unity/Assets/core/upm/Runtime/Src/Loader.cs
    public interface IModuleChecker
    {
        bool IsESM(string filepath);
    }

    // unity/Assets/core/upm/Runtime/Src/Loader.cs (reads through UnityEngine.Resources.Load; strips .mjs/.cjs)
    public class DefaultLoader : ILoader, IModuleChecker
    {
        public DefaultLoader() { }
        public DefaultLoader(string root) { }
        public bool FileExists(string filepath) { throw null; }
        public string ReadFile(string filepath, out string debugpath) { throw null; }
        public bool IsESM(string filepath) { throw null; }
    }

    // unity/Assets/core/upm/Runtime/Src/ArrayBuffer.cs
    public class ArrayBuffer
    {
        public byte[] Bytes;
        public int Count;
        public ArrayBuffer(byte[] bytes) { }
        public ArrayBuffer(byte[] bytes, int count) { }
    }

    // unity/Assets/core/upm/Runtime/Src/Default/JSType/JSObject.cs
    public class JSObject
    {
        public T Get<T>(string key) { throw null; }
    }

    // unity/Assets/core/upm/Runtime/Src/Default/JsEnv.cs
    public class JsEnv : IDisposable
    {
        public JsEnv() { }
        public JsEnv(ILoader loader, int debugPort = -1) { }
        public JSObject ExecuteModule(string specifier) { throw null; }
        public T ExecuteModule<T>(string specifier, string exportee) { throw null; }
        public void UsingAction<T1>() { }
        public void UsingAction<T1, T2>() { }
        public void UsingAction<T1, T2, T3>() { }
        public void UsingAction<T1, T2, T3, T4>() { }
        public void UsingFunc<TResult>() { }
        public void UsingFunc<T1, TResult>() { }
        public void UsingFunc<T1, T2, TResult>() { }
        public void UsingFunc<T1, T2, T3, TResult>() { }
        public void UsingFunc<T1, T2, T3, T4, TResult>() { }
        public void Tick() { }
        public void WaitDebugger() { }
        public void Dispose() { }
    }
}
