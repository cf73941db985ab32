// The WebSocket server of the remote control, without Unity (System.* only, so it also runs under plain
// Mono: TsProject/test/unity.websocket.mono.test.ts). It moves text; the protocol is TypeScript
// (src/live/remote), reached through the handler given to Pump.
//
// Why not HttpListener: HttpListenerContext.AcceptWebSocketAsync is not implemented in Mono (it throws
// NotImplementedException, https://github.com/mono/mono/issues/15119; on Mono 6.8 IsWebSocketRequest is
// false for every upgrade). So the opening handshake is done here on a TcpListener (RFC 6455 section 4.2,
// https://www.rfc-editor.org/rfc/rfc6455#section-4.2) and the framing by
// WebSocket.CreateFromStream(stream, isServer: true, ...) (.NET Standard 2.1; present in Mono 6.8).
//
// Threads: accept and each client's receive loop and send loop run on the thread pool (async/await with
// no synchronization context). A received message is queued; Pump (the host's thread: Unity's main
// thread, where the JsEnv lives) drains the queue in arrival order, calls the handler, queues its reply
// for the sender and its broadcast for every other open client. Each client has one send loop, so one
// SendAsync at a time per socket (System.Net.WebSockets allows one send and one receive at a time).
using System;
using System.Collections.Concurrent;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Net.WebSockets;
using System.Security.Cryptography;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace KindRetargeting
{
    /// <summary>What the handler gives for one text message: the reply for the sender and the broadcast
    /// for every other client (either null or empty: nothing sent).</summary>
    public struct KindSocketResult
    {
        public string Reply;
        public string Broadcast;
    }

    /// <summary>The protocol side of <see cref="KindWebSocketServer"/>: called by Pump, on Pump's thread,
    /// once per text message in arrival order. A throw is caught and logged (no reply is sent).</summary>
    public interface IKindSocketHandler
    {
        KindSocketResult OnText(string clientId, string text);
    }

    /// <summary>The receiver of a server's <see cref="KindWebSocketServer.SourcePath"/> (a live pose stream such
    /// as the browser mocap page's: KindMocapStream). Called on the client's receive thread, once per whole
    /// message in arrival order (so it must be thread-safe towards the main thread); a throw is caught and
    /// logged. The return value is sent back to that client as a text message (null or empty: nothing).</summary>
    public interface IKindStreamSink
    {
        /// <summary>A text message (the stream's JSON messages).</summary>
        string OnStreamText(string clientId, string text);
        /// <summary>A binary message in <paramref name="bytes"/>[0, <paramref name="count"/>): the server's
        /// reused buffer, valid only during the call (copy what you keep).</summary>
        string OnStreamBinary(string clientId, byte[] bytes, int count);
    }

    /// <summary>
    /// WebSocket server on ws://127.0.0.1:&lt;Port&gt;&lt;Path&gt; (every interface with
    /// <see cref="AllowNetwork"/>). The upgrade is refused with 426 without <c>Upgrade: websocket</c> and
    /// <c>Connection: Upgrade</c> or with a Sec-WebSocket-Version other than 13, 404 on another path,
    /// 401 without the <see cref="Token"/> (when set; <c>?token=</c> in the URL or the
    /// <c>x-kind-token</c> header), 405 for a method other than GET, 400 for a malformed request or a
    /// Sec-WebSocket-Key that is not 16 bytes in base64, 503 when <see cref="MaxClients"/> are connected,
    /// 403 when the request carries an <c>Origin</c> header (a web page) that is not on
    /// <see cref="AllowedOrigins"/> (requests without one, i.e. scripts, tools and Unity, are not asked).
    /// A message over <see cref="MaxMessageBytes"/> closes that client with 1009 (MessageTooBig, the
    /// reason names the limit); an unmasked client frame closes it with 1002 (ProtocolError, RFC 6455
    /// section 5.1); a binary message gets <see cref="BinaryReply"/>; a client whose outgoing queue would
    /// go over <see cref="MaxQueuedBytesPerClient"/> bytes is dropped (its TCP connection is cut: a
    /// client that does not read cannot read a close frame either). Set the options before
    /// <see cref="Start"/>.
    /// <para>With a <see cref="SourceSink"/>, upgrades on <see cref="SourcePath"/> (default <c>/source</c>)
    /// pass the same token, origin and client-count rules and become stream clients: their messages (text
    /// and binary) go straight to the sink on the receive thread, never to Pump's handler, and they get no
    /// broadcasts (the browser mocap source, src/mocap/STREAM.md).</para>
    /// </summary>
    public sealed class KindWebSocketServer : IDisposable
    {
        /// <summary>RFC 6455 section 1.3: the GUID appended to Sec-WebSocket-Key.</summary>
        public const string HandshakeGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
        /// <summary>The reply to a binary message: the protocol's error shape (src/live/remote errorReply),
        /// the same text the Node server (src/live/node/remoteServer.ts) sends.</summary>
        /// <summary>The one message size limit, bytes (UTF-8): the transport's default
        /// <see cref="MaxMessageBytes"/> and the protocol's (src/live/remote DEFAULT_MAX_MESSAGE_BYTES; the
        /// Node server uses the same constant).</summary>
        public const int DefaultMaxMessageBytes = 16384;
        /// <summary>
        /// The most <see cref="MaxMessageBytes"/> may be for the protocol: the bundle's remote() refuses a
        /// message over its DEFAULT_MAX_MESSAGE_BYTES (16384) with a protocol error, so the transport must not
        /// accept more (one size limit: over it, a client always gets 1009).
        /// </summary>
        public const int ProtocolMaxMessageBytes = DefaultMaxMessageBytes;

        /// <summary><paramref name="bytes"/> clamped to 1..<see cref="ProtocolMaxMessageBytes"/>.</summary>
        public static int ClampToProtocol(int bytes)
        {
            return bytes < 1 ? 1 : bytes > ProtocolMaxMessageBytes ? ProtocolMaxMessageBytes : bytes;
        }
        /// <summary>Default <see cref="MaxQueuedBytesPerClient"/>: 1 MiB (the Node server's maxBufferedBytes).</summary>
        public const int DefaultMaxQueuedBytes = 1 << 20;
        public const string BinaryReply = "{\"action\":null,\"ok\":false,\"error\":{\"field\":\"$\",\"message\":\"need a text message (JSON)\"}}";

        /// <summary>TCP port; 0 picks a free one (see <see cref="BoundPort"/>).</summary>
        public int Port = 64212;
        /// <summary>Listen on every interface instead of 127.0.0.1.</summary>
        public bool AllowNetwork;
        /// <summary>The WebSocket path (exact match, query string aside).</summary>
        public string Path = "/retargeting";
        /// <summary>Path of the stream clients (see <see cref="SourceSink"/>).</summary>
        public string SourcePath = "/source";
        /// <summary>Where stream clients' messages go; null: <see cref="SourcePath"/> is refused (404).
        /// May be set or cleared while running (new upgrades see the current value).</summary>
        public volatile IKindStreamSink SourceSink;
        /// <summary>Shared token; null or empty: none required.</summary>
        public string Token;
        /// <summary>Most clients at once; more get 503.</summary>
        public int MaxClients = 64;
        /// <summary>Largest message, bytes; a larger one closes that client with 1009.</summary>
        public int MaxMessageBytes = DefaultMaxMessageBytes;
        /// <summary>Outgoing bytes (UTF-8, the message being sent included) queued per client at most; a
        /// message that would go over it drops the client.</summary>
        public int MaxQueuedBytesPerClient = DefaultMaxQueuedBytes;
        /// <summary>Browser origins allowed to connect (<c>scheme://host[:port]</c>, e.g.
        /// <c>http://127.0.0.1:8064</c>; <c>*</c>: any). A request with an <c>Origin</c> header not on it
        /// gets 403; a request without one (not a browser) is not asked. Default: none (no web page).</summary>
        public string[] AllowedOrigins = new string[0];
        /// <summary>Largest request head (request line and headers), bytes; a larger one gets 400.</summary>
        public int MaxHeadBytes = 8192;
        /// <summary>Time a connection has to send its request head.</summary>
        public TimeSpan HandshakeTimeout = TimeSpan.FromSeconds(10);
        /// <summary>Time a closing client has to answer the close frame before its socket is cut.</summary>
        public TimeSpan CloseTimeout = TimeSpan.FromSeconds(5);
        /// <summary>Interval of the unsolicited pongs WebSocket.CreateFromStream sends.</summary>
        public TimeSpan KeepAliveInterval = TimeSpan.FromSeconds(30);

        sealed class Client
        {
            public string Id;
            public WebSocket Socket;
            public readonly ConcurrentQueue<byte[]> Outgoing = new ConcurrentQueue<byte[]>();
            public readonly SemaphoreSlim Signal = new SemaphoreSlim(0);
            /// <summary>Bytes queued and not yet sent (the message being sent included).</summary>
            public long QueuedBytes;
            public FrameGuardStream Guard;
            public volatile bool Gone;
            /// <summary>A <see cref="SourcePath"/> client: messages to the sink, no broadcasts.</summary>
            public IKindStreamSink Sink;
            /// <summary>A close frame to send after the queue (0: none).</summary>
            public volatile int CloseStatus;
            public string CloseReason;
            /// <summary>Set when the send loop has ended.</summary>
            public readonly TaskCompletionSource<bool> Closed = new TaskCompletionSource<bool>();
        }

        struct Incoming
        {
            public Client From;
            public string Text; // null: a binary message
        }

        struct LogLine
        {
            public string Text;
            public bool Problem;
        }

        TcpListener listener;
        volatile bool running;
        int nextClient;
        int slots; // clients holding a slot (handshake answered 101, not yet ended)
        int connections, refused;
        long peakQueuedBytes;
        CancellationTokenSource stopping = new CancellationTokenSource();
        readonly ConcurrentDictionary<string, Client> clients = new ConcurrentDictionary<string, Client>();
        readonly ConcurrentQueue<Incoming> incoming = new ConcurrentQueue<Incoming>();
        readonly ConcurrentQueue<LogLine> log = new ConcurrentQueue<LogLine>();
        readonly AutoResetEvent activity = new AutoResetEvent(false);

        /// <summary>The port listened on (after <see cref="Start"/>).</summary>
        public int BoundPort { get; private set; }
        /// <summary>Open clients now.</summary>
        public int ClientCount { get { return clients.Count; } }
        /// <summary>Connections accepted (101) since Start.</summary>
        public int Connections { get { return Volatile.Read(ref connections); } }
        /// <summary>Upgrades refused (any 4xx/5xx answer) since Start.</summary>
        public int Refused { get { return Volatile.Read(ref refused); } }
        /// <summary>The most bytes any client had queued at once since Start (stays within
        /// <see cref="MaxQueuedBytesPerClient"/>).</summary>
        public long PeakQueuedBytes { get { return Interlocked.Read(ref peakQueuedBytes); } }
        /// <summary>True between Start and Stop.</summary>
        public bool IsRunning { get { return running; } }
        /// <summary>ws://host:port/path (without the token).</summary>
        public string Url { get { return "ws://" + (AllowNetwork ? "0.0.0.0" : "127.0.0.1") + ":" + BoundPort + Path; } }

        /// <summary>Binds and starts accepting.</summary>
        /// <exception cref="ArgumentOutOfRangeException">an option out of range (named).</exception>
        /// <exception cref="SocketException">the port cannot be bound (in use, no permission).</exception>
        public void Start()
        {
            if (running) throw new InvalidOperationException("KindWebSocketServer: already started");
            if (Port < 0 || Port > 65535) throw new ArgumentOutOfRangeException("Port", Port, "need 0..65535");
            if (string.IsNullOrEmpty(Path) || Path[0] != '/') throw new ArgumentOutOfRangeException("Path", Path, "need a path starting with /");
            if (MaxClients < 1) throw new ArgumentOutOfRangeException("MaxClients", MaxClients, "need >= 1");
            if (MaxMessageBytes < 1) throw new ArgumentOutOfRangeException("MaxMessageBytes", MaxMessageBytes, "need >= 1");
            if (MaxQueuedBytesPerClient < MaxMessageBytes) throw new ArgumentOutOfRangeException("MaxQueuedBytesPerClient", MaxQueuedBytesPerClient, "need >= MaxMessageBytes");
            if (AllowedOrigins == null) AllowedOrigins = new string[0];
            if (MaxHeadBytes < 256) throw new ArgumentOutOfRangeException("MaxHeadBytes", MaxHeadBytes, "need >= 256");
            stopping = new CancellationTokenSource();
            listener = new TcpListener(AllowNetwork ? IPAddress.Any : IPAddress.Loopback, Port);
            listener.Start();
            BoundPort = ((IPEndPoint)listener.LocalEndpoint).Port;
            running = true;
            TcpListener l = listener;
            Task.Run(() => AcceptLoop(l));
        }

        /// <summary>Stops accepting and cuts every client (no close handshake). Idempotent.</summary>
        public void Stop()
        {
            if (!running) return;
            running = false;
            try { stopping.Cancel(); } catch (ObjectDisposedException) { }
            try { listener.Stop(); } catch (SocketException) { }
            foreach (var kv in clients)
            {
                kv.Value.Gone = true;
                try { kv.Value.Socket.Abort(); } catch (Exception) { }
                kv.Value.Signal.Release();
            }
            clients.Clear();
            activity.Set();
        }

        public void Dispose() { Stop(); }

        /// <summary>
        /// Handles at most <paramref name="maxMessages"/> queued messages on the calling thread, in arrival
        /// order: a text message goes to <paramref name="handler"/>, its reply to the sender (if still
        /// open), its broadcast to every other open client; a binary message is answered with
        /// <see cref="BinaryReply"/>. Returns the number handled.
        /// </summary>
        public int Pump(int maxMessages, IKindSocketHandler handler)
        {
            if (handler == null) throw new ArgumentNullException("handler");
            int n = 0;
            Incoming m;
            while (n < maxMessages && incoming.TryDequeue(out m))
            {
                n++;
                if (m.Text == null)
                {
                    Send(m.From, Encoding.UTF8.GetBytes(BinaryReply));
                    continue;
                }
                KindSocketResult r;
                try { r = handler.OnText(m.From.Id, m.Text); }
                catch (Exception e) { Log(true, "the handler threw on a message of " + m.From.Id + ": " + e.Message); continue; }
                if (!string.IsNullOrEmpty(r.Reply)) Send(m.From, Encoding.UTF8.GetBytes(r.Reply));
                if (!string.IsNullOrEmpty(r.Broadcast))
                {
                    byte[] b = Encoding.UTF8.GetBytes(r.Broadcast); // shared by every client's queue (never written)
                    foreach (var kv in clients) if (kv.Value != m.From && kv.Value.Sink == null) Send(kv.Value, b);
                }
            }
            return n;
        }

        /// <summary>Takes one log line (connections, refusals, closes; <paramref name="problem"/> for
        /// errors), written by the socket threads. False when none is waiting.</summary>
        public bool TryTakeLog(out string line, out bool problem)
        {
            LogLine l;
            if (log.TryDequeue(out l)) { line = l.Text; problem = l.Problem; return true; }
            line = null; problem = false;
            return false;
        }

        /// <summary>Blocks until a message or a log line arrives, the server stops, or the timeout
        /// passes (for hosts without a frame loop; Unity polls Pump from Update instead).</summary>
        public bool WaitForActivity(int milliseconds)
        {
            return activity.WaitOne(milliseconds);
        }

        /// <summary>Sec-WebSocket-Accept for a Sec-WebSocket-Key: base64(SHA-1(key + GUID)), RFC 6455 section 4.2.2.</summary>
        public static string AcceptKey(string key)
        {
            using (SHA1 sha = SHA1.Create())
                return Convert.ToBase64String(sha.ComputeHash(Encoding.ASCII.GetBytes(key + HandshakeGuid)));
        }

        void Log(bool problem, string text)
        {
            log.Enqueue(new LogLine { Text = text, Problem = problem });
            activity.Set();
        }

        void Send(Client c, byte[] bytes)
        {
            if (c.Gone || c.CloseStatus != 0) return;
            long queued = Interlocked.Add(ref c.QueuedBytes, bytes.Length);
            if (queued > MaxQueuedBytesPerClient)
            {
                Interlocked.Add(ref c.QueuedBytes, -bytes.Length);
                c.Gone = true;
                Log(true, c.Id + ": send queue would go over " + MaxQueuedBytesPerClient + " bytes (" + queued +
                    "; the client is not reading); dropping the client");
                try { c.Socket.Abort(); } catch (Exception) { }
                c.Signal.Release();
                return;
            }
            long peak;
            while (queued > (peak = Interlocked.Read(ref peakQueuedBytes)) &&
                   Interlocked.CompareExchange(ref peakQueuedBytes, queued, peak) != peak) { }
            c.Outgoing.Enqueue(bytes);
            c.Signal.Release();
        }

        /// <summary>"scheme://host[:port]" lower-cased, without a trailing slash.</summary>
        static string NormalizeOrigin(string origin)
        {
            string o = origin.Trim().ToLowerInvariant();
            while (o.EndsWith("/", StringComparison.Ordinal)) o = o.Substring(0, o.Length - 1);
            return o;
        }

        bool OriginAllowed(string origin)
        {
            if (origin == null) return true; // not a browser: scripts, tools, Unity
            string o = NormalizeOrigin(origin);
            foreach (string a in AllowedOrigins)
            {
                if (string.IsNullOrEmpty(a)) continue;
                string n = NormalizeOrigin(a);
                if (n == "*" || n == o) return true;
            }
            return false;
        }

        async Task AcceptLoop(TcpListener l)
        {
            while (running)
            {
                TcpClient tcp;
                try { tcp = await l.AcceptTcpClientAsync().ConfigureAwait(false); }
                catch (Exception e)
                {
                    if (!running) return; // stopped: the listener throws ObjectDisposed/SocketException
                    Log(true, "accept failed: " + e.Message);
                    await Task.Delay(100).ConfigureAwait(false); // e.g. out of file handles: do not spin
                    continue;
                }
                TcpClient t = tcp;
                _ = Task.Run(() => Serve(t)); // runs on; Serve catches and logs its own errors
            }
        }

        sealed class Head
        {
            public string Method, Target, Version;
            public readonly System.Collections.Generic.Dictionary<string, string> Headers =
                new System.Collections.Generic.Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
            public string Header(string name) { string v; return Headers.TryGetValue(name, out v) ? v : null; }
        }

        /// <summary>Reads up to the blank line ending the head, byte by byte (no byte of the first frame is
        /// consumed). Null when the connection ended first or the head is over MaxHeadBytes.</summary>
        async Task<byte[]> ReadHead(NetworkStream stream)
        {
            var bytes = new MemoryStream();
            var one = new byte[1];
            while (bytes.Length < MaxHeadBytes)
            {
                int n = await stream.ReadAsync(one, 0, 1).ConfigureAwait(false);
                if (n == 0) return null;
                bytes.WriteByte(one[0]);
                long k = bytes.Length;
                if (k >= 4)
                {
                    byte[] b = bytes.GetBuffer();
                    if (b[k - 4] == '\r' && b[k - 3] == '\n' && b[k - 2] == '\r' && b[k - 1] == '\n') return bytes.ToArray();
                }
            }
            return new byte[0]; // too long
        }

        static Head ParseHead(byte[] raw)
        {
            // header fields are octets, read as Latin-1 (RFC 9110 section 5.5)
            var chars = new char[raw.Length - 4];
            for (int i = 0; i < chars.Length; i++) chars[i] = (char)raw[i];
            string text = new string(chars);
            string[] lines = text.Split(new[] { "\r\n" }, StringSplitOptions.None);
            string[] start = lines[0].Split(' ');
            if (start.Length != 3 || start[0].Length == 0 || start[1].Length == 0) return null;
            var h = new Head { Method = start[0], Target = start[1], Version = start[2] };
            for (int i = 1; i < lines.Length; i++)
            {
                int colon = lines[i].IndexOf(':');
                if (colon <= 0) return null;
                string name = lines[i].Substring(0, colon).Trim();
                string value = lines[i].Substring(colon + 1).Trim();
                string old;
                h.Headers[name] = h.Headers.TryGetValue(name, out old) ? old + ", " + value : value;
            }
            return h;
        }

        static bool HasToken(string headerValue, string token)
        {
            if (headerValue == null) return false;
            foreach (string part in headerValue.Split(','))
                if (string.Equals(part.Trim(), token, StringComparison.OrdinalIgnoreCase)) return true;
            return false;
        }

        /// <summary>The value of <paramref name="name"/> in a query string (application/x-www-form-urlencoded,
        /// as URLSearchParams reads it), or null.</summary>
        static string QueryValue(string query, string name)
        {
            foreach (string pair in query.Split('&'))
            {
                int eq = pair.IndexOf('=');
                string k = eq < 0 ? pair : pair.Substring(0, eq);
                string v = eq < 0 ? "" : pair.Substring(eq + 1);
                try
                {
                    if (Uri.UnescapeDataString(k.Replace('+', ' ')) == name) return Uri.UnescapeDataString(v.Replace('+', ' '));
                }
                catch (Exception) { return null; }
            }
            return null;
        }

        static bool TokenMatches(string given, string token)
        {
            if (given == null) return false;
            byte[] a = Encoding.UTF8.GetBytes(given), b = Encoding.UTF8.GetBytes(token);
            int diff = a.Length ^ b.Length;
            for (int i = 0; i < b.Length; i++) diff |= (i < a.Length ? a[i] : 0) ^ b[i]; // time independent of where they differ
            return diff == 0;
        }

        static bool ValidKey(string key)
        {
            if (key == null || key.Length != 24) return false;
            try { return Convert.FromBase64String(key).Length == 16; }
            catch (FormatException) { return false; }
        }

        /// <summary>The status for a request head (101 when it is an acceptable upgrade), with the reason
        /// and extra header lines for a refusal.</summary>
        int Check(Head h, out string why, out string extraHeaders)
        {
            extraHeaders = "";
            if (h == null) { why = "malformed request"; return 400; }
            if (!h.Version.StartsWith("HTTP/1.", StringComparison.Ordinal) || h.Version == "HTTP/1.0") { why = "need HTTP/1.1"; return 400; }
            if (!HasToken(h.Header("Upgrade"), "websocket") || !HasToken(h.Header("Connection"), "Upgrade"))
            {
                extraHeaders = "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n";
                why = "WebSocket only: connect to " + Path;
                return 426;
            }
            string target = h.Target;
            int q = target.IndexOf('?');
            string path = q < 0 ? target : target.Substring(0, q);
            string query = q < 0 ? "" : target.Substring(q + 1);
            if (path != Path && (SourceSink == null || path != SourcePath)) { why = "path " + path; return 404; }
            if (!string.IsNullOrEmpty(Token))
            {
                string given = QueryValue(query, "token") ?? h.Header("x-kind-token");
                if (!TokenMatches(given, Token)) { why = "bad or missing token"; return 401; }
            }
            if (h.Method != "GET") { why = "method " + h.Method; return 405; }
            if (!OriginAllowed(h.Header("Origin")))
            {
                why = "origin " + h.Header("Origin") + " is not on the allow-list (AllowedOrigins)";
                return 403;
            }
            if (h.Header("Sec-WebSocket-Version") != "13")
            {
                extraHeaders = "Sec-WebSocket-Version: 13\r\n";
                why = "Sec-WebSocket-Version " + (h.Header("Sec-WebSocket-Version") ?? "missing") + ", need 13";
                return 426;
            }
            if (!ValidKey(h.Header("Sec-WebSocket-Key"))) { why = "missing or invalid Sec-WebSocket-Key"; return 400; }
            why = null;
            return 101;
        }

        static string ReasonPhrase(int status)
        {
            switch (status)
            {
                case 400: return "Bad Request";
                case 401: return "Unauthorized";
                case 403: return "Forbidden";
                case 404: return "Not Found";
                case 405: return "Method Not Allowed";
                case 426: return "Upgrade Required";
                case 503: return "Service Unavailable";
                default: return "Error";
            }
        }

        static async Task WriteAscii(NetworkStream stream, string text)
        {
            byte[] b = Encoding.ASCII.GetBytes(text);
            await stream.WriteAsync(b, 0, b.Length).ConfigureAwait(false);
            await stream.FlushAsync().ConfigureAwait(false);
        }

        /// <summary>Answers a refused upgrade, then closes gracefully: our side is shut, and what the
        /// client still sends is read and dropped (at most 1 MiB, CloseTimeout) so that closing does not
        /// reset the connection before the client has read the answer.</summary>
        async Task Refuse(TcpClient tcp, NetworkStream stream, string from, int status, string why, string extraHeaders)
        {
            Interlocked.Increment(ref refused);
            Log(false, "refused " + from + ": " + status + " (" + why + ")");
            string body = why + "\n";
            await WriteAscii(stream, "HTTP/1.1 " + status + " " + ReasonPhrase(status) + "\r\nConnection: close\r\n" + extraHeaders +
                "Content-Type: text/plain\r\nContent-Length: " + Encoding.ASCII.GetByteCount(body) + "\r\n\r\n" + body).ConfigureAwait(false);
            await Linger(tcp, stream).ConfigureAwait(false);
        }

        /// <summary>Shuts our side and reads and drops what the client still sends (at most 1 MiB,
        /// CloseTimeout), so that closing does not reset the connection before the client has read our
        /// last bytes.</summary>
        async Task Linger(TcpClient tcp, Stream stream)
        {
            try
            {
                tcp.Client.Shutdown(SocketShutdown.Send);
                using (var timer = new CancellationTokenSource(CloseTimeout))
                using (timer.Token.Register(() => tcp.Close()))
                {
                    var sink = new byte[4096];
                    for (int total = 0; total < (1 << 20);)
                    {
                        int n = await stream.ReadAsync(sink, 0, sink.Length).ConfigureAwait(false);
                        if (n == 0) break;
                        total += n;
                    }
                }
            }
            catch (Exception) { } // the client went first, or CloseTimeout: closed either way
        }

        async Task Serve(TcpClient tcp)
        {
            string from = "?";
            bool slot = false;
            Client c = null;
            Task sender = null;
            try
            {
                try { from = tcp.Client.RemoteEndPoint.ToString(); } catch (Exception) { }
                tcp.NoDelay = true;
                NetworkStream stream = tcp.GetStream();
                byte[] raw;
                using (var timer = new CancellationTokenSource(HandshakeTimeout))
                using (timer.Token.Register(() => tcp.Close()))
                {
                    try { raw = await ReadHead(stream).ConfigureAwait(false); }
                    catch (Exception) when (timer.IsCancellationRequested)
                    {
                        Log(false, from + ": no request within " + HandshakeTimeout.TotalSeconds + " s");
                        return;
                    }
                }
                if (raw == null) return; // closed before a whole head
                Head head = raw.Length == 0 ? null : ParseHead(raw);
                string why, extra;
                int status = Check(head, out why, out extra);
                if (raw.Length == 0) why = "request head over " + MaxHeadBytes + " bytes";
                if (status != 101) { await Refuse(tcp, stream, from, status, why, extra).ConfigureAwait(false); return; }
                if (Interlocked.Increment(ref slots) > MaxClients)
                {
                    Interlocked.Decrement(ref slots);
                    await Refuse(tcp, stream, from, 503, MaxClients + " clients already", "").ConfigureAwait(false);
                    return;
                }
                slot = true;
                if (!running) return;
                // the id is taken before the 101 goes out: ids follow the order clients see their upgrade answered
                string id = "unity-" + Interlocked.Increment(ref nextClient);
                await WriteAscii(stream, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
                    AcceptKey(head.Header("Sec-WebSocket-Key")) + "\r\n\r\n").ConfigureAwait(false);
                var guard = new FrameGuardStream(stream);
                string target = head.Target;
                int qm = target.IndexOf('?');
                IKindStreamSink sink = SourceSink;
                c = new Client
                {
                    Id = id,
                    Guard = guard,
                    Socket = WebSocket.CreateFromStream(guard, true, null, KeepAliveInterval),
                    Sink = (qm < 0 ? target : target.Substring(0, qm)) == SourcePath ? sink : null,
                };
                clients[c.Id] = c;
                Interlocked.Increment(ref connections);
                Log(false, c.Id + " connected from " + from);
                Client cc = c;
                sender = Task.Run(() => SendLoop(cc));
                await ReceiveLoop(c).ConfigureAwait(false);
            }
            catch (Exception e)
            {
                if (c != null && c.Guard.Violation != null)
                {
                    // our close frame (1002) is out; let the client read it before the socket goes
                    Log(false, c.Id + ": " + c.Guard.Violation + "; closed with 1002");
                    try { await Linger(tcp, tcp.GetStream()).ConfigureAwait(false); } catch (Exception) { }
                }
                else if (c != null && Abrupt(e))
                    Log(false, c.Id + " disconnected without a close frame (" + Innermost(e).Message + ")");
                else if (running) Log(true, (c != null ? c.Id : from) + ": " + e.Message);
            }
            finally
            {
                if (c != null)
                {
                    c.Gone = true;
                    Client removed;
                    clients.TryRemove(c.Id, out removed);
                    c.Signal.Release(); // wake the send loop so it ends
                    if (sender != null)
                    {
                        try { await sender.ConfigureAwait(false); } catch (Exception) { }
                    }
                    string code = c.Socket.CloseStatus.HasValue ? ((int)c.Socket.CloseStatus.Value).ToString()
                        : c.Guard.SentCloseStatus != 0 ? Convert.ToString(c.Guard.SentCloseStatus) : "no close frame";
                    c.Socket.Dispose();
                    tcp.Close();
                    // the slot is free before the line says so (a client reading "closed" may connect again)
                    if (slot) { Interlocked.Decrement(ref slots); slot = false; }
                    Log(false, c.Id + " closed (" + code + ")");
                }
                tcp.Close();
                if (slot) Interlocked.Decrement(ref slots);
            }
        }

        async Task ReceiveLoop(Client c)
        {
            var buffer = new byte[8192];
            var message = new MemoryStream();
            CancellationTokenSource cut = null, stop = null;
            try
            {
                while (running && !c.Gone)
                {
                    CancellationToken token = stop != null ? stop.Token : stopping.Token;
                    WebSocketReceiveResult r = await c.Socket.ReceiveAsync(new ArraySegment<byte>(buffer), token).ConfigureAwait(false);
                    if (r.MessageType == WebSocketMessageType.Close)
                    {
                        // the peer's close: answer it (unless ours went first) and end
                        if (cut == null) RequestClose(c, WebSocketCloseStatus.NormalClosure, "");
                        break;
                    }
                    if (cut != null) continue; // draining until the peer answers our close
                    if (message.Length + r.Count > MaxMessageBytes)
                    {
                        RequestClose(c, WebSocketCloseStatus.MessageTooBig, "message larger than " + MaxMessageBytes + " bytes");
                        Log(false, c.Id + ": message over " + MaxMessageBytes + " bytes; closing with 1009");
                        // the peer has CloseTimeout to answer the close frame; then its socket is cut
                        cut = new CancellationTokenSource(CloseTimeout);
                        stop = CancellationTokenSource.CreateLinkedTokenSource(stopping.Token, cut.Token);
                        continue;
                    }
                    message.Write(buffer, 0, r.Count);
                    if (!r.EndOfMessage) continue;
                    if (c.Sink != null)
                    {
                        StreamMessage(c, r.MessageType == WebSocketMessageType.Text, message);
                        message.SetLength(0);
                        continue;
                    }
                    string text = r.MessageType == WebSocketMessageType.Text
                        ? Encoding.UTF8.GetString(message.GetBuffer(), 0, (int)message.Length)
                        : null;
                    message.SetLength(0);
                    incoming.Enqueue(new Incoming { From = c, Text = text });
                    activity.Set();
                }
                if (c.CloseStatus != 0)
                {
                    // let the send loop put the close frame out (bounded by CloseTimeout)
                    c.Signal.Release();
                    await Task.WhenAny(c.Closed.Task, Task.Delay(CloseTimeout)).ConfigureAwait(false);
                }
            }
            finally
            {
                if (stop != null) stop.Dispose();
                if (cut != null) cut.Dispose();
            }
        }

        /// <summary>A stream client's whole message to its sink (receive thread); the sink's reply queued.</summary>
        void StreamMessage(Client c, bool isText, MemoryStream message)
        {
            string reply;
            try
            {
                reply = isText
                    ? c.Sink.OnStreamText(c.Id, Encoding.UTF8.GetString(message.GetBuffer(), 0, (int)message.Length))
                    : c.Sink.OnStreamBinary(c.Id, message.GetBuffer(), (int)message.Length);
            }
            catch (Exception e) { Log(true, "the stream sink threw on a message of " + c.Id + ": " + e.Message); return; }
            if (!string.IsNullOrEmpty(reply)) Send(c, Encoding.UTF8.GetBytes(reply));
        }

        /// <summary>The peer went away without the close handshake (reset, EOF mid-stream): normal for
        /// a remote control (a closed laptop lid, a killed script).</summary>
        static bool Abrupt(Exception e)
        {
            for (Exception x = e; x != null; x = x.InnerException)
            {
                if (x is SocketException || x is IOException || x is ObjectDisposedException) return true;
                var w = x as WebSocketException;
                if (w != null && w.WebSocketErrorCode == WebSocketError.ConnectionClosedPrematurely) return true;
            }
            return false;
        }

        static Exception Innermost(Exception e)
        {
            while (e.InnerException != null) e = e.InnerException;
            return e;
        }

        void RequestClose(Client c, WebSocketCloseStatus status, string reason)
        {
            c.CloseReason = reason;
            c.CloseStatus = (int)status;
            c.Signal.Release();
        }

        async Task SendLoop(Client c)
        {
            try
            {
                while (true)
                {
                    await c.Signal.WaitAsync().ConfigureAwait(false);
                    byte[] bytes;
                    while (!c.Gone && c.Outgoing.TryDequeue(out bytes))
                    {
                        await c.Socket.SendAsync(new ArraySegment<byte>(bytes), WebSocketMessageType.Text, true, stopping.Token).ConfigureAwait(false);
                        Interlocked.Add(ref c.QueuedBytes, -bytes.Length); // counted until the socket took it
                    }
                    if (c.CloseStatus != 0 && !c.Gone)
                    {
                        WebSocketState s = c.Socket.State;
                        if (s == WebSocketState.Open || s == WebSocketState.CloseReceived)
                            await c.Socket.CloseOutputAsync((WebSocketCloseStatus)c.CloseStatus, c.CloseReason, stopping.Token).ConfigureAwait(false);
                        return;
                    }
                    if (c.Gone) return;
                }
            }
            catch (Exception)
            {
                // a send failed: the socket is broken; cut it so the receive loop ends too
                c.Gone = true;
                try { c.Socket.Abort(); } catch (Exception) { }
            }
            finally { c.Closed.TrySetResult(true); }
        }
    }

    /// <summary>
    /// The stream under the server's WebSocket: passes bytes through, follows the client's frame headers
    /// (RFC 6455 section 5.2) and refuses an unmasked client frame (section 5.1: "a server MUST close the
    /// connection upon receiving a frame that is not masked", status 1002): it writes a close frame 1002
    /// itself (between two whole frames of the WebSocket: System.Net.WebSockets writes each frame with one
    /// Write call, and writes are serialized here) and fails the read, so the frame never reaches the
    /// protocol. System.Net.WebSockets' server side does not check the mask bit (it unmasks when set and
    /// passes unmasked frames on), hence this check.
    /// </summary>
    sealed class FrameGuardStream : Stream
    {
        readonly Stream inner;
        readonly SemaphoreSlim writeLock = new SemaphoreSlim(1, 1);
        readonly byte[] head = new byte[14];
        int have, need = 2;
        long payloadLeft;
        volatile bool closed;
        /// <summary>Why the connection was refused (null: not).</summary>
        public volatile string Violation;
        /// <summary>The status of the close frame written here (0: none).</summary>
        public volatile int SentCloseStatus;

        public FrameGuardStream(Stream inner) { this.inner = inner; }

        /// <summary>Follows the frame headers in bytes read; the violation, or null.</summary>
        string Scan(byte[] b, int offset, int count)
        {
            int i = offset, end = offset + count;
            while (i < end)
            {
                if (payloadLeft > 0)
                {
                    long skip = Math.Min(payloadLeft, end - i);
                    payloadLeft -= skip;
                    i += (int)skip;
                    continue;
                }
                head[have++] = b[i++];
                if (have == 2)
                {
                    if ((head[1] & 0x80) == 0) return "unmasked client frame (RFC 6455 section 5.1)";
                    int len7 = head[1] & 0x7f;
                    need = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + 4;
                }
                if (have == need)
                {
                    int len7 = head[1] & 0x7f;
                    long len = len7;
                    if (len7 == 126) len = (head[2] << 8) | head[3];
                    else if (len7 == 127)
                    {
                        len = 0;
                        for (int k = 2; k < 10; k++) len = (len << 8) | head[k];
                        if (len < 0) return "frame length over 2^63 (RFC 6455 section 5.2)";
                    }
                    payloadLeft = len;
                    have = 0;
                    need = 2;
                }
            }
            return null;
        }

        async Task Refuse(string why, CancellationToken ct)
        {
            Violation = why;
            await writeLock.WaitAsync().ConfigureAwait(false);
            try
            {
                if (closed) return;
                closed = true;
                byte[] reason = Encoding.UTF8.GetBytes(why);
                var frame = new byte[4 + reason.Length]; // reason <= 123 bytes: one-byte length
                frame[0] = 0x88;
                frame[1] = (byte)(2 + reason.Length);
                frame[2] = 1002 >> 8;
                frame[3] = 1002 & 0xff;
                Buffer.BlockCopy(reason, 0, frame, 4, reason.Length);
                SentCloseStatus = 1002;
                await inner.WriteAsync(frame, 0, frame.Length, ct).ConfigureAwait(false);
                await inner.FlushAsync(ct).ConfigureAwait(false);
            }
            catch (Exception) { } // the client is gone already
            finally { writeLock.Release(); }
        }

        public override async Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken ct)
        {
            if (Violation != null) throw new IOException(Violation);
            int n = await inner.ReadAsync(buffer, offset, count, ct).ConfigureAwait(false);
            string why = Scan(buffer, offset, n);
            if (why != null)
            {
                await Refuse(why, CancellationToken.None).ConfigureAwait(false);
                throw new IOException(why);
            }
            return n;
        }

        public override int Read(byte[] buffer, int offset, int count)
        {
            return ReadAsync(buffer, offset, count, CancellationToken.None).GetAwaiter().GetResult();
        }

        public override async Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken ct)
        {
            await writeLock.WaitAsync(ct).ConfigureAwait(false);
            try
            {
                if (closed) throw new IOException("the connection was closed (" + Violation + ")");
                await inner.WriteAsync(buffer, offset, count, ct).ConfigureAwait(false);
            }
            finally { writeLock.Release(); }
        }

        public override void Write(byte[] buffer, int offset, int count)
        {
            WriteAsync(buffer, offset, count, CancellationToken.None).GetAwaiter().GetResult();
        }

        public override Task FlushAsync(CancellationToken ct) { return inner.FlushAsync(ct); }
        public override void Flush() { inner.Flush(); }
        public override bool CanRead { get { return true; } }
        public override bool CanWrite { get { return true; } }
        public override bool CanSeek { get { return false; } }
        public override long Length { get { throw new NotSupportedException(); } }
        public override long Position { get { throw new NotSupportedException(); } set { throw new NotSupportedException(); } }
        public override long Seek(long offset, SeekOrigin origin) { throw new NotSupportedException(); }
        public override void SetLength(long value) { throw new NotSupportedException(); }

        // Dispose closes the inner stream (WebSocket.Abort, e.g. on a cancelled receive, ends a pending
        // read that way), except after a violation: then the server closes the TcpClient itself, after
        // letting the client read the close frame (Linger).
        protected override void Dispose(bool disposing)
        {
            if (disposing && Violation == null) inner.Dispose();
            base.Dispose(disposing);
        }
    }
}
