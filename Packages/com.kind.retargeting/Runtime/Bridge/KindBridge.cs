// One JsEnv with the bundle loaded and its exports bound to cached delegates. Exports used (the package
// README "The boundary"; TsProject/src/unity): LAYOUT_VERSION, apiVersion, createHub, destroyHub, update,
// command, remote, exportState, importState. Nothing else of the bundle is called from C#.
//
// PuerTS 2.x (Tencent/puerts unity/Assets/core/upm/Runtime/Src/Default/JsEnv.cs):
//   ExecuteModule<T>(string specifier, string exportee) returns one export converted to T (a delegate for a
//   JS function). Delegates whose parameters or result include value types must be registered first with
//   UsingFunc<...>() / UsingAction<...>() (at most 4 parameters); reference-only ones need nothing, but we
//   register every signature we use so the list is in one place. IL2CPP players additionally need the
//   generated bridges (Tools/PuerTS/Generate For Il2cpp) or link.xml (README).
using System;
using Puerts;
using UnityEngine.Scripting;

namespace Kind.Retargeting
{
    /// <summary>The bundle's exports as C# delegates, over one JsEnv. Not thread-safe: main thread only.</summary>
    [Preserve]
    public sealed class KindBridge : IDisposable
    {
        /// <summary>createHub(setupJson: string): number -> handle >= 1; throws naming the bad field.</summary>
        public readonly Func<string, int> CreateHub;
        /// <summary>destroyHub(handle: number): void.</summary>
        public readonly Action<int> DestroyHub;
        /// <summary>update(handle, input: ArrayBuffer, dt: number): ArrayBuffer. One call per avatar-frame.</summary>
        public readonly Func<int, ArrayBuffer, float, ArrayBuffer> Update;
        /// <summary>command(handle, json): string (reply JSON).</summary>
        public readonly Func<int, string, string> Command;
        /// <summary>remote(text, clientId): string, JSON {"reply": string, "broadcast": string|null}.</summary>
        public readonly Func<string, string, string> Remote;
        /// <summary>exportState(): string, every hub, for hot reload.</summary>
        public readonly Func<string> ExportState;
        /// <summary>importState(json): void.</summary>
        public readonly Action<string> ImportState;
        /// <summary>apiVersion(): string.</summary>
        public readonly Func<string> ApiVersion;
        /// <summary>The bundle's LAYOUT_VERSION.</summary>
        public readonly int LayoutVersion;

        JsEnv env;

        /// <summary>Creates a JsEnv with <paramref name="loader"/>, runs the bundle and binds its exports.
        /// Throws (and disposes the env) when the bundle is missing, fails to run, or has another layout version.</summary>
        public KindBridge(ILoader loader, int debugPort)
        {
            KindBridgeLayout.CheckEndianness();
            env = new JsEnv(loader, debugPort);
            try
            {
                RegisterDelegateTypes(env);
                const string spec = KindLoader.BundleSpecifier;
                env.ExecuteModule(spec);
                LayoutVersion = env.ExecuteModule<int>(spec, "LAYOUT_VERSION");
                if (LayoutVersion != KindBridgeLayout.Version)
                    throw new InvalidOperationException("KindRetargeting: bundle LAYOUT_VERSION is " + LayoutVersion + ", this package expects " + KindBridgeLayout.Version + " (rebuild the bundle or update the package)");
                ApiVersion = Bind<Func<string>>(spec, "apiVersion");
                CreateHub = Bind<Func<string, int>>(spec, "createHub");
                DestroyHub = Bind<Action<int>>(spec, "destroyHub");
                Update = Bind<Func<int, ArrayBuffer, float, ArrayBuffer>>(spec, "update");
                Command = Bind<Func<int, string, string>>(spec, "command");
                Remote = Bind<Func<string, string, string>>(spec, "remote");
                ExportState = Bind<Func<string>>(spec, "exportState");
                ImportState = Bind<Action<string>>(spec, "importState");
            }
            catch
            {
                env.Dispose();
                env = null;
                throw;
            }
        }

        T Bind<T>(string spec, string name) where T : class
        {
            T d = env.ExecuteModule<T>(spec, name);
            if (d == null) throw new InvalidOperationException("KindRetargeting: the bundle has no export '" + name + "'");
            return d;
        }

        /// <summary>Registers the generic delegate signatures the bridge uses (value-type parameters need it in PuerTS 2.x).</summary>
        public static void RegisterDelegateTypes(JsEnv env)
        {
            env.UsingFunc<string, int>();
            env.UsingAction<int>();
            env.UsingFunc<int, ArrayBuffer, float, ArrayBuffer>();
            env.UsingFunc<int, string, string>();
            env.UsingFunc<string, string, string>();
            env.UsingFunc<string>();
            env.UsingAction<string>();
        }

        /// <summary>Timers, promise jobs, released handles and the debugger; call once per frame.</summary>
        public void Tick() { if (env != null) env.Tick(); }

        /// <summary>Ends the engine; the delegates must not be called afterwards.</summary>
        public void Dispose()
        {
            if (env != null) { env.Dispose(); env = null; }
        }

        /// <summary>True until disposed.</summary>
        public bool IsAlive { get { return env != null; } }
    }
}
