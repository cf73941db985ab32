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

    /// <summary>
    /// WebSocket server on ws://127.0.0.1:&lt;Port&gt;&lt;Path&gt; (every interface with
    /// <see cref="AllowNetwork"/>). The upgrade is refused with 426 without <c>Upgrade: websocket</c> and
    /// <c>Connection: Upgrade</c> or with a Sec-WebSocket-Version other than 13, 404 on another path,
    /// 401 without the <see cref="Token"/> (when set; <c>?token=</c> in the URL or the
    /// <c>x-kind-token</c> header), 405 for a method other than GET, 400 for a malformed request or a
    /// Sec-WebSocket-Key that is not 16 bytes in base64, 503 when <see cref="MaxClients"/> are connected.
    /// A message over <see cref="MaxMessageBytes"/> closes that client with 1009 (MessageTooBig); a
    /// binary message gets <see cref="BinaryReply"/>; a client with more than
    /// <see cref="MaxQueuedPerClient"/> messages waiting to be sent is dropped. Set the options before
    /// <see cref="Start"/>.
    /// </summary>
    public sealed class KindWebSocketServer : IDisposable
    {
        /// <summary>RFC 6455 section 1.3: the GUID appended to Sec-WebSocket-Key.</summary>
        public const string HandshakeGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
        /// <summary>The reply to a binary message: the protocol's error shape (src/live/remote errorReply),
        /// the same text the Node server (src/live/node/remoteServer.ts) sends.</summary>
        public const string BinaryReply = "{\"action\":null,\"ok\":false,\"error\":{\"field\":\"$\",\"message\":\"need a text message (JSON)\"}}";

        /// <summary>TCP port; 0 picks a free one (see <see cref="BoundPort"/>).</summary>
        public int Port = 64212;
        /// <summary>Listen on every interface instead of 127.0.0.1.</summary>
        public bool AllowNetwork;
        /// <summary>The WebSocket path (exact match, query string aside).</summary>
        public string Path = "/retargeting";
        /// <summary>Shared token; null or empty: none required.</summary>
        public string Token;
        /// <summary>Most clients at once; more get 503.</summary>
        public int MaxClients = 64;
        /// <summary>Largest message, bytes; a larger one closes that client with 1009.</summary>
        public int MaxMessageBytes = 64 * 1024;
        /// <summary>Outgoing messages queued per client at most; a client over it is dropped.</summary>
        public int MaxQueuedPerClient = 1024;
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
            public readonly ConcurrentQueue<string> Outgoing = new ConcurrentQueue<string>();
            public readonly SemaphoreSlim Signal = new SemaphoreSlim(0);
            public int Queued;
            public volatile bool Gone;
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
            if (MaxQueuedPerClient < 1) throw new ArgumentOutOfRangeException("MaxQueuedPerClient", MaxQueuedPerClient, "need >= 1");
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
                    Send(m.From, BinaryReply);
                    continue;
                }
                KindSocketResult r;
                try { r = handler.OnText(m.From.Id, m.Text); }
                catch (Exception e) { Log(true, "the handler threw on a message of " + m.From.Id + ": " + e.Message); continue; }
                if (!string.IsNullOrEmpty(r.Reply)) Send(m.From, r.Reply);
                if (!string.IsNullOrEmpty(r.Broadcast))
                    foreach (var kv in clients) if (kv.Value != m.From) Send(kv.Value, r.Broadcast);
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

        void Send(Client c, string text)
        {
            if (c.Gone || c.CloseStatus != 0) return;
            if (Interlocked.Increment(ref c.Queued) > MaxQueuedPerClient)
            {
                c.Gone = true;
                Log(true, c.Id + ": more than " + MaxQueuedPerClient + " messages waiting; dropping the client");
                try { c.Socket.Abort(); } catch (Exception) { }
                c.Signal.Release();
                return;
            }
            c.Outgoing.Enqueue(text);
            c.Signal.Release();
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
            if (path != Path) { why = "path " + path; return 404; }
            if (!string.IsNullOrEmpty(Token))
            {
                string given = QueryValue(query, "token") ?? h.Header("x-kind-token");
                if (!TokenMatches(given, Token)) { why = "bad or missing token"; return 401; }
            }
            if (h.Method != "GET") { why = "method " + h.Method; return 405; }
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
                await WriteAscii(stream, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
                    AcceptKey(head.Header("Sec-WebSocket-Key")) + "\r\n\r\n").ConfigureAwait(false);
                c = new Client
                {
                    Id = "unity-" + Interlocked.Increment(ref nextClient),
                    Socket = WebSocket.CreateFromStream(stream, true, null, KeepAliveInterval),
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
                if (running) Log(true, (c != null ? c.Id : from) + ": " + e.Message);
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
                    string code = c.Socket.CloseStatus.HasValue ? ((int)c.Socket.CloseStatus.Value).ToString() : "no close frame";
                    c.Socket.Dispose();
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
                    string text;
                    while (!c.Gone && c.Outgoing.TryDequeue(out text))
                    {
                        Interlocked.Decrement(ref c.Queued);
                        byte[] bytes = Encoding.UTF8.GetBytes(text);
                        await c.Socket.SendAsync(new ArraySegment<byte>(bytes), WebSocketMessageType.Text, true, stopping.Token).ConfigureAwait(false);
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
}
