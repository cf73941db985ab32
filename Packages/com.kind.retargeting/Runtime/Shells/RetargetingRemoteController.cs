// The WebSocket transport of the remote-control protocol inside Unity. The protocol itself (parse,
// validate, dispatch, replies, broadcasts) is TypeScript (src/live/remote), reached through the bundle's
// remote(text, clientId) export; the socket work (TcpListener, RFC 6455 handshake, one receive and one
// send loop per client on the thread pool) is KindWebSocketServer (Runtime/Bridge, Unity-free, tested
// under Mono). This component only owns it: starts it in OnEnable, and in Update (the main thread, where
// the JsEnv lives) hands the queued messages to remote() and passes its reply and broadcast back.
// registeredCharacters (the original's field, seed "RetargetingRemoteController 배치 + registeredCharacters에
// 캐릭터 등록"): when non-empty, remote() gets their names as its scope (a JSON array, built once in a frame
// that has messages, nothing allocated in frames without), so only they are listed and addressable.
// Saves: remote()'s result names the characters whose settings to save (a remote autoCalibrateAll that
// succeeded: the original's "CalibrateHeadToForward() + 저장"); after the frame's messages each of them is
// saved once, through the same method CustomRetargetingScript.AutoCalibrateAll() uses (KindRemoteSaves).
using System;
using System.Text;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>
    /// WebSocket server on ws://127.0.0.1:&lt;port&gt;/retargeting (port 64212; loopback only unless
    /// <see cref="allowNetwork"/>). Every text message is passed to the bundle's remote(text, clientId) on
    /// the main thread; the reply goes to the sender, the broadcast (if any) to the other clients. Only the
    /// <see cref="registeredCharacters"/> are served when it is non-empty. A remote autoCalibrateAll that
    /// succeeded saves that character's settings (once per character in a frame), as its component's
    /// AutoCalibrateAll() does.
    /// Refusals and limits: see <see cref="KindWebSocketServer"/>.
    /// </summary>
    [DisallowMultipleComponent]
    [AddComponentMenu("Kind Retargeting/Retargeting Remote Controller")]
    public class RetargetingRemoteController : MonoBehaviour, IKindSocketHandler
    {
        public int port = 64212;
        [Tooltip("Listen on every interface instead of 127.0.0.1 (set a token then).")]
        public bool allowNetwork;
        [Tooltip("When set, clients must send it as ?token=<token> in the URL or in the x-kind-token header (else HTTP 401).")]
        public string token = "";
        [Tooltip("Most clients at once; more are refused with HTTP 503.")]
        public int maxClients = 64;
        [Tooltip("Largest accepted message in bytes; a larger one closes that client with MessageTooBig (1009). At most 16384, the protocol's own limit (the bundle refuses a larger message with a protocol error, so a larger value here is clamped to it at start).")]
        [Range(1, KindWebSocketServer.ProtocolMaxMessageBytes)]
        public int maxMessageBytes = KindWebSocketServer.DefaultMaxMessageBytes;
        [Tooltip("Web pages (browser origins, e.g. http://127.0.0.1:8064) allowed to connect; '*': any. Others get HTTP 403. Clients without an Origin header (scripts, tools) are not asked. Default: none.")]
        public string[] allowedOrigins = new string[0];
        [Tooltip("Messages handled per frame at most (the rest wait for the next frame).")]
        public int maxMessagesPerFrame = 256;
        [Tooltip("Outgoing bytes queued per client at most; a client that does not read is dropped once its queue would go over.")]
        public int maxQueuedBytesPerClient = KindWebSocketServer.DefaultMaxQueuedBytes;
        [Tooltip("The characters this controller serves: refresh lists only them, and an action naming another character gets the unknown-character error. Empty: every character. Characters are addressed by their CharacterName.")]
        public CustomRetargetingScript[] registeredCharacters = new CustomRetargetingScript[0];

        KindWebSocketServer server;
        string scope;      // remote()'s scope for this frame's messages: a JSON array of names, or null (every character)
        bool scopeBuilt;   // built at the first message of a frame (the names may change between frames)
        readonly StringBuilder scopeText = new StringBuilder();
        readonly KindRemoteSaves saves = new KindRemoteSaves();

        /// <summary>The URL served (the bound port once listening).</summary>
        public string Url { get { return "ws://" + (allowNetwork ? "0.0.0.0" : "127.0.0.1") + ":" + (server != null ? server.BoundPort : port) + "/retargeting"; } }
        /// <summary>Connected clients now.</summary>
        public int ClientCount { get { return server != null ? server.ClientCount : 0; } }

        IKindStreamSink streamSink;

        /// <summary>
        /// Routes the server's <c>/source</c> path to <paramref name="sink"/> (KindBrowserMocapSource: the mocap
        /// page streams there with this server's token and origin rules); null closes the path (404).
        /// </summary>
        public void AttachStream(IKindStreamSink sink)
        {
            streamSink = sink;
            if (server != null) server.SourceSink = sink;
        }

        /// <summary>The stream URL of <see cref="AttachStream"/>: ws://host:port/source.</summary>
        public string StreamUrl { get { return Url.Substring(0, Url.Length - "/retargeting".Length) + "/source"; } }

        void OnEnable()
        {
            int messageBytes = KindWebSocketServer.ClampToProtocol(maxMessageBytes);
            if (messageBytes != maxMessageBytes)
                Debug.LogWarning("KindRetargeting remote: maxMessageBytes " + maxMessageBytes + " is outside 1.." + KindWebSocketServer.ProtocolMaxMessageBytes + " (the protocol's limit); using " + messageBytes, this);
            server = new KindWebSocketServer
            {
                Port = port,
                AllowNetwork = allowNetwork,
                Token = token,
                MaxClients = maxClients,
                MaxMessageBytes = messageBytes,
                MaxQueuedBytesPerClient = maxQueuedBytesPerClient,
                AllowedOrigins = allowedOrigins,
                SourceSink = streamSink,
            };
            try { server.Start(); }
            catch (Exception e)
            {
                Debug.LogError("KindRetargeting remote: could not listen on " + Url + ": " + e.Message, this);
                server = null;
                return;
            }
            Debug.Log("KindRetargeting remote: listening on " + Url, this);
        }

        void Update()
        {
            if (server == null) return;
            string line;
            bool problem;
            while (server.TryTakeLog(out line, out problem))
            {
                if (problem) Debug.LogWarning("KindRetargeting remote: " + line, this);
                else Debug.Log("KindRetargeting remote: " + line, this);
            }
            KindRuntime runtime = KindRuntime.Current;
            if (runtime == null || !runtime.IsReady) return; // messages wait for the bundle
            scopeBuilt = false;
            server.Pump(maxMessagesPerFrame, this);
            if (saves.Count > 0) saves.Flush(SaveCharacter, SaveFailed);
        }

        /// <summary>
        /// Saves the settings of the character named <paramref name="characterName"/> (its hub's name) as
        /// CustomRetargetingScript.AutoCalibrateAll() does (scales read back, then SaveSettings), for a remote
        /// autoCalibrateAll. The character is looked up among <see cref="registeredCharacters"/> when set, else
        /// among the scene's CustomRetargetingScripts (FindObjectsOfType: only in a frame with a save).
        /// </summary>
        void SaveCharacter(string characterName)
        {
            CustomRetargetingScript[] candidates = registeredCharacters != null && registeredCharacters.Length > 0
                ? registeredCharacters
                : FindObjectsOfType<CustomRetargetingScript>();
            foreach (CustomRetargetingScript c in candidates)
            {
                if (c == null || c.Driver == null || c.Driver.Name != characterName) continue;
                c.SaveAfterAutoCalibrateAll();
                return;
            }
            Debug.LogWarning("KindRetargeting remote: autoCalibrateAll of '" + characterName + "' is not saved: no CustomRetargetingScript with that hub", this);
        }

        void SaveFailed(string characterName, Exception e)
        {
            Debug.LogError("KindRetargeting remote: saving the settings of '" + characterName + "' failed: " + e.Message, this);
        }

        /// <summary>remote()'s scope: null when <see cref="registeredCharacters"/> is empty (every character), else a JSON
        /// array of the registered characters' names (missing entries skipped; all missing: none is served).</summary>
        public string Scope()
        {
            if (registeredCharacters == null || registeredCharacters.Length == 0) return null;
            scopeText.Length = 0;
            scopeText.Append('[');
            bool first = true;
            foreach (CustomRetargetingScript c in registeredCharacters)
            {
                if (c == null) continue;
                if (!first) scopeText.Append(',');
                KindJson.AppendString(scopeText, c.CharacterName);
                first = false;
            }
            scopeText.Append(']');
            return scopeText.ToString();
        }

        KindSocketResult IKindSocketHandler.OnText(string clientId, string text)
        {
            var none = new KindSocketResult();
            string result;
            if (!scopeBuilt) { scope = Scope(); scopeBuilt = true; }
            try { result = KindRuntime.Current.Remote(text, clientId, scope); }
            catch (Exception e) { Debug.LogError("KindRetargeting remote: remote() threw: " + e.Message, this); return none; }
            object parsed;
            try { parsed = KindJson.Parse(result); }
            catch (FormatException e) { Debug.LogError("KindRetargeting remote: unreadable result of remote(): " + e.Message, this); return none; }
            saves.Collect(parsed);
            return new KindSocketResult
            {
                Reply = KindJson.Member(parsed, "reply") as string,
                Broadcast = KindJson.Member(parsed, "broadcast") as string,
            };
        }

        void OnDisable()
        {
            if (server != null) { server.Dispose(); server = null; }
        }
    }
}
