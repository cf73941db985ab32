// The one PuerTS host of a scene: owns the JsEnv (through KindBridge), ticks it, hands the bundle's
// exports to the shells, and in the Editor hot-reloads the bundle when its file changes.
using System;
using System.Collections.Generic;
using System.IO;
using Puerts;
using UnityEngine;
using UnityEngine.Scripting;

namespace KindRetargeting
{
    /// <summary>A character (hub) registered by a shell, listed by the control window.</summary>
    public sealed class KindCharacter
    {
        /// <summary>The hub's name (setup "name"; the remote protocol's characterName).</summary>
        public string Name;
        /// <summary>The hub handle from createHub (kept across hot reloads: importState restores the same handles).</summary>
        public int Handle;
        /// <summary>The shell that owns it.</summary>
        public Component Owner;
    }

    /// <summary>
    /// One per scene (created on demand by the shells when absent). Runs first (order -1000): ticks the
    /// JsEnv, then checks the bundle file for hot reload, so every shell of the frame sees the new code.
    /// </summary>
    [Preserve]
    [DefaultExecutionOrder(-1000)]
    [DisallowMultipleComponent]
    [AddComponentMenu("Kind Retargeting/Kind Runtime")]
    public class KindRuntime : MonoBehaviour
    {
        [Tooltip("Editor only: a folder holding kind-retargeting/main.mjs to load and hot-reload instead of the package's bundle, e.g. the folder `node tools/watch.mjs --out <folder>` writes (a package installed by git URL sits read-only in Library/PackageCache). Relative to the project folder. Used while that file exists; until then the package's bundle runs and the file is watched. Empty: the project's folder (Tools > Kind Retargeting > Hot Reload Bundle Folder), else the package's Runtime/Resources. Players always load the bundle from Resources.")]
        public string editorBundleFolder = "";

        [Tooltip("Editor only: reload the bundle when its file changes (state kept through exportState/importState).")]
        public bool hotReload = true;

        [Tooltip("Seconds between checks of the bundle file's timestamp.")]
        [Range(0.05f, 5f)]
        public float pollInterval = 0.25f;

        [Tooltip("V8 inspector port for attaching a debugger, -1 for none.")]
        public int debugPort = -1;

        static KindRuntime instance;
        KindBridge bridge;
        KindLoader loader;
        readonly List<KindCharacter> characters = new List<KindCharacter>();
        string bundlePath;
        DateTime bundleStamp;
        long bundleLength;
        DateTime pendingStamp;
#if UNITY_EDITOR
        float nextPoll;
#endif
        int reloadCount;
        string loadError;

        /// <summary>
        /// Editor only: the project's hot-reload bundle folder (holding kind-retargeting/main.mjs), used when
        /// <see cref="editorBundleFolder"/> is empty; null or empty: the package's Runtime/Resources. The Editor
        /// assembly sets it from the project's setting (Tools > Kind Retargeting > Hot Reload Bundle Folder, kept in
        /// EditorPrefs per project) when scripts load. Read when the runtime starts.
        /// </summary>
        public static string ProjectBundleFolder { get; set; }

        /// <summary>The bundle file this runtime reads and, in the Editor, watches (null in players).</summary>
        public string BundlePath { get { return bundlePath; } }

        /// <summary>True when the running bundle was read from <see cref="BundlePath"/> (false: through Resources).</summary>
        public bool BundleFromDisk { get { return bundlePath != null && File.Exists(bundlePath); } }

        /// <summary>Raised after a successful hot reload (the new bundle runs, state imported).</summary>
        public event Action Reloaded;

        /// <summary>The scene's runtime, created on a new GameObject when there is none.</summary>
        public static KindRuntime Get()
        {
            if (instance != null) return instance;
            instance = FindObjectOfType<KindRuntime>();
            if (instance == null) instance = new GameObject("Kind Runtime").AddComponent<KindRuntime>();
            instance.EnsureStarted();
            return instance;
        }

        /// <summary>The runtime if one exists, else null (does not create one).</summary>
        public static KindRuntime Current { get { return instance; } }

        /// <summary>Registered characters (read-only view for the Editor).</summary>
        public IList<KindCharacter> Characters { get { return characters.AsReadOnly(); } }

        /// <summary>The bundle's apiVersion(), or the load error.</summary>
        public string Status { get { return bridge != null ? bridge.ApiVersion() : ("not loaded: " + loadError); } }

        /// <summary>Hot reloads done since start.</summary>
        public int ReloadCount { get { return reloadCount; } }

        /// <summary>True when the bundle is loaded.</summary>
        public bool IsReady { get { return bridge != null; } }

        void Awake()
        {
            if (instance != null && instance != this)
            {
                Debug.LogError("KindRetargeting: more than one KindRuntime in the scene; keeping '" + instance.name + "', disabling this one.", this);
                enabled = false;
                return;
            }
            instance = this;
            EnsureStarted();
        }

        void EnsureStarted()
        {
            if (bridge != null) return;
            loader = new KindLoader(EditorDiskRoot());
            bundlePath = loader.DiskPath(KindLoader.BundleSpecifier);
            try
            {
                bridge = new KindBridge(loader, debugPort);
                loadError = null;
            }
            catch (Exception e)
            {
                loadError = e.Message;
                Debug.LogError("KindRetargeting: could not load the bundle " + KindLoader.BundleSpecifier + ": " + e.Message, this);
            }
#if UNITY_EDITOR
            if (bridge != null && (!string.IsNullOrEmpty(editorBundleFolder) || !string.IsNullOrEmpty(ProjectBundleFolder)))
                Debug.Log("KindRetargeting: bundle " + (BundleFromDisk ? "read from " + bundlePath : "from the package (Resources); watching " + bundlePath + " for a hot-reload build"), this);
#endif
            if (bundlePath != null && File.Exists(bundlePath))
            {
                var info = new FileInfo(bundlePath);
                bundleStamp = pendingStamp = info.LastWriteTimeUtc;
                bundleLength = info.Length;
            }
        }

        string EditorDiskRoot()
        {
#if UNITY_EDITOR
            return KindBundleFolder.Resolve(editorBundleFolder, ProjectBundleFolder);
#else
            return null;
#endif
        }

        void Update()
        {
            if (bridge == null) return;
            try { bridge.Tick(); }
            catch (Exception e) { Debug.LogException(e, this); }
#if UNITY_EDITOR
            if (hotReload && bundlePath != null && Time.realtimeSinceStartup >= nextPoll)
            {
                nextPoll = Time.realtimeSinceStartup + pollInterval;
                PollBundle();
            }
#endif
        }

        void PollBundle()
        {
            if (!File.Exists(bundlePath)) return;
            var info = new FileInfo(bundlePath);
            DateTime stamp = info.LastWriteTimeUtc;
            if (stamp == bundleStamp && info.Length == bundleLength) return;
            // Wait for one quiet poll interval so a bundle still being written is not read half-way.
            if (stamp != pendingStamp) { pendingStamp = stamp; return; }
            bundleStamp = stamp;
            bundleLength = info.Length;
            Reload();
        }

        /// <summary>
        /// Hot reload, all within this call (one frame): load the new bundle in a fresh JsEnv and bind its
        /// exports; exportState() from the old env; importState(json) into the new one; dispose the old env.
        /// Handles stay valid (importState restores them), so the shells keep going without a pop. If the
        /// new bundle fails to load or to import the state, the old env stays in use and the error is logged.
        /// </summary>
        public void Reload()
        {
            KindBridge next;
            try { next = new KindBridge(loader, -1); }
            catch (Exception e)
            {
                Debug.LogError("KindRetargeting: hot reload: the new bundle did not load, keeping the running one: " + e.Message, this);
                return;
            }
            if (bridge != null)
            {
                try
                {
                    string state = bridge.ExportState();
                    next.ImportState(state);
                }
                catch (Exception e)
                {
                    next.Dispose();
                    Debug.LogError("KindRetargeting: hot reload: state did not carry over, keeping the running bundle: " + e.Message, this);
                    return;
                }
                bridge.Dispose();
            }
            bridge = next;
            loadError = null;
            reloadCount++;
            Debug.Log("KindRetargeting: hot reload #" + reloadCount + " (" + bridge.ApiVersion() + ", " + (BundleFromDisk ? bundlePath : "Resources") + ")", this);
            if (Reloaded != null) Reloaded();
        }

        /// <summary>createHub(setupJson) and registration for the control window. Throws with the bundle's message on a bad setup.</summary>
        public int CreateHub(string name, string setupJson, Component owner)
        {
            RequireBridge();
            int handle = bridge.CreateHub(setupJson);
            characters.Add(new KindCharacter { Name = name, Handle = handle, Owner = owner });
            return handle;
        }

        /// <summary>destroyHub(handle) and unregistration.</summary>
        public void DestroyHub(int handle)
        {
            for (int i = characters.Count - 1; i >= 0; i--) if (characters[i].Handle == handle) characters.RemoveAt(i);
            if (bridge != null)
            {
                try { bridge.DestroyHub(handle); }
                catch (Exception e) { Debug.LogWarning("KindRetargeting: destroyHub(" + handle + "): " + e.Message, this); }
            }
        }

        /// <summary>update(handle, input, dt): the one per-avatar-frame call. In the reflection JsEnv the result is one reused ArrayBuffer valid until the next call (KindResultBuffer: no garbage); in the IL2CPP-optimised JsEnv a new one per call.</summary>
        public ArrayBuffer UpdateHub(int handle, ArrayBuffer input, float dt)
        {
            RequireBridge();
            return bridge.UpdateReused(handle, input, dt);
        }

        /// <summary>
        /// defaultTake() -> the embedded default walk as JSON (a whole take in Unity coordinates, about 72 KB; see
        /// KindTake.Parse). Allocates: call once at set-up. Throws when the bundle is not loaded or predates the export.
        /// </summary>
        public string DefaultTake()
        {
            RequireBridge();
            if (bridge.DefaultTake == null) throw new InvalidOperationException("KindRetargeting: this bundle has no defaultTake export (rebuild it: node tools/build.mjs unity)");
            return bridge.DefaultTake();
        }

        /// <summary>command(handle, json) -> reply JSON.</summary>
        public string Command(int handle, string json)
        {
            RequireBridge();
            return bridge.Command(handle, json);
        }

        /// <summary>remote(text, clientId) -> {"reply", "broadcast"} JSON, over every character.</summary>
        public string Remote(string text, string clientId)
        {
            return Remote(text, clientId, null);
        }

        /// <summary>remote(text, clientId, scope) -> {"reply", "broadcast"} JSON. <paramref name="scope"/>: a JSON array
        /// of the character names served (refresh lists only them, an action naming another gets the unknown-character
        /// error), or null for every character.</summary>
        public string Remote(string text, string clientId, string scope)
        {
            RequireBridge();
            return bridge.Remote(text, clientId, scope);
        }

        void RequireBridge()
        {
            if (bridge == null) throw new InvalidOperationException("KindRetargeting: the bundle is not loaded (" + loadError + ")");
        }

        void OnDestroy()
        {
            if (instance == this) instance = null;
            if (bridge != null) { bridge.Dispose(); bridge = null; }
            characters.Clear();
        }
    }
}
