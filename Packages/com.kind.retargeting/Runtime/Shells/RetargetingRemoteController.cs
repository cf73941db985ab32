// The WebSocket transport of the remote-control protocol inside Unity. The protocol itself (parse,
// validate, dispatch, replies, broadcasts) is TypeScript (src/live/remote), reached through the bundle's
// remote(text, clientId) export; this class only moves text.
//
// Threads: System.Net.HttpListener accepts on a background thread; each client's receive loop and send
// loop run on the thread pool (async/await). Received text messages go into a ConcurrentQueue; Update
// (main thread, where the JsEnv lives) drains it, calls remote(), and queues the reply for the sender and
// the broadcast for every other client. Each client has one send loop, so SendAsync is never called
// concurrently on one socket (System.Net.WebSockets.WebSocket allows one send and one receive at a time).
using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Net;
using System.Net.WebSockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using UnityEngine;

namespace Kind.Retargeting
{
    /// <summary>
    /// WebSocket server on http://127.0.0.1:&lt;port&gt;/retargeting/ (port 64212; loopback only unless
    /// <see cref="allowNetwork"/>). Every text message is passed to the bundle's remote(text, clientId) on
    /// the main thread; the reply goes to the sender, the broadcast (if any) to the other clients.
    /// </summary>
    [DisallowMultipleComponent]
    [AddComponentMenu("Kind Retargeting/Retargeting Remote Controller")]
    public sealed class RetargetingRemoteController : MonoBehaviour
    {
        public int port = 64212;
        [Tooltip("Listen on every interface (http://+:port/retargeting/) instead of loopback. On Windows this needs a URL ACL (netsh http add urlacl) or admin rights.")]
        public bool allowNetwork;
        [Tooltip("Largest accepted message in bytes; a larger one closes that client with MessageTooBig.")]
        public int maxMessageBytes = 64 * 1024;
        [Tooltip("Messages handled per frame at most (the rest wait for the next frame).")]
        public int maxMessagesPerFrame = 256;
        [Tooltip("Outgoing messages queued per client at most; a client that does not read is dropped.")]
        public int maxQueuedPerClient = 1024;

        sealed class Client
        {
            public string Id;
            public WebSocket Socket;
            public readonly ConcurrentQueue<string> Outgoing = new ConcurrentQueue<string>();
            public readonly SemaphoreSlim Signal = new SemaphoreSlim(0);
            public int Queued;
        }

        struct Incoming { public string ClientId; public string Text; }

        HttpListener listener;
        Thread acceptThread;
        volatile bool running;
        int nextClient;
        readonly ConcurrentDictionary<string, Client> clients = new ConcurrentDictionary<string, Client>();
        readonly ConcurrentQueue<Incoming> incoming = new ConcurrentQueue<Incoming>();
        readonly ConcurrentQueue<string> log = new ConcurrentQueue<string>();
        CancellationTokenSource cancel = new CancellationTokenSource();

        /// <summary>The URL prefix served.</summary>
        public string Prefix { get { return (allowNetwork ? "http://+:" : "http://127.0.0.1:") + port + "/retargeting/"; } }
        /// <summary>Connected clients now.</summary>
        public int ClientCount { get { return clients.Count; } }

        void OnEnable()
        {
            cancel = new CancellationTokenSource();
            try
            {
                listener = new HttpListener();
                listener.Prefixes.Add(Prefix);
                listener.Start();
            }
            catch (Exception e)
            {
                Debug.LogError("KindRetargeting remote: could not listen on " + Prefix + ": " + e.Message, this);
                listener = null;
                return;
            }
            running = true;
            acceptThread = new Thread(AcceptLoop) { IsBackground = true, Name = "Kind remote accept" };
            acceptThread.Start();
            Debug.Log("KindRetargeting remote: listening on " + Prefix.Replace("http", "ws"), this);
        }

        void AcceptLoop()
        {
            while (running)
            {
                HttpListenerContext ctx;
                try { ctx = listener.GetContext(); }
                catch (Exception) { break; } // listener stopped
                if (!ctx.Request.IsWebSocketRequest)
                {
                    ctx.Response.StatusCode = 400;
                    ctx.Response.Close();
                    continue;
                }
                Task.Run(() => Serve(ctx));
            }
        }

        async Task Serve(HttpListenerContext ctx)
        {
            Client c = new Client { Id = "unity-" + Interlocked.Increment(ref nextClient) };
            try
            {
                HttpListenerWebSocketContext ws = await ctx.AcceptWebSocketAsync(null);
                c.Socket = ws.WebSocket;
            }
            catch (Exception e) { log.Enqueue("handshake failed: " + e.Message); return; }
            clients[c.Id] = c;
            Task sender = SendLoop(c);
            var buffer = new byte[8192];
            var message = new List<byte>();
            try
            {
                while (running && c.Socket.State == WebSocketState.Open)
                {
                    WebSocketReceiveResult r = await c.Socket.ReceiveAsync(new ArraySegment<byte>(buffer), cancel.Token);
                    if (r.MessageType == WebSocketMessageType.Close) break;
                    if (message.Count + r.Count > maxMessageBytes)
                    {
                        await c.Socket.CloseAsync(WebSocketCloseStatus.MessageTooBig, "message larger than " + maxMessageBytes + " bytes", CancellationToken.None);
                        break;
                    }
                    for (int i = 0; i < r.Count; i++) message.Add(buffer[i]);
                    if (!r.EndOfMessage) continue;
                    if (r.MessageType == WebSocketMessageType.Text)
                        incoming.Enqueue(new Incoming { ClientId = c.Id, Text = Encoding.UTF8.GetString(message.ToArray()) });
                    message.Clear();
                }
            }
            catch (Exception e) { if (running) log.Enqueue(c.Id + ": " + e.Message); }
            finally
            {
                Client removed;
                clients.TryRemove(c.Id, out removed);
                c.Signal.Release(); // wake the send loop so it ends
                try { await sender; } catch (Exception) { }
                c.Socket.Dispose();
            }
        }

        async Task SendLoop(Client c)
        {
            while (running)
            {
                await c.Signal.WaitAsync();
                if (!clients.ContainsKey(c.Id) || c.Socket.State != WebSocketState.Open) return;
                string text;
                while (c.Outgoing.TryDequeue(out text))
                {
                    Interlocked.Decrement(ref c.Queued);
                    byte[] bytes = Encoding.UTF8.GetBytes(text);
                    try { await c.Socket.SendAsync(new ArraySegment<byte>(bytes), WebSocketMessageType.Text, true, cancel.Token); }
                    catch (Exception) { return; }
                }
            }
        }

        void Send(Client c, string text)
        {
            if (Interlocked.Increment(ref c.Queued) > maxQueuedPerClient)
            {
                log.Enqueue(c.Id + ": more than " + maxQueuedPerClient + " messages waiting; dropping the client");
                try { c.Socket.Abort(); } catch (Exception) { }
                return;
            }
            c.Outgoing.Enqueue(text);
            c.Signal.Release();
        }

        void Update()
        {
            string line;
            while (log.TryDequeue(out line)) Debug.LogWarning("KindRetargeting remote: " + line, this);
            KindRuntime runtime = KindRuntime.Current;
            if (runtime == null || !runtime.IsReady) return;
            Incoming m;
            for (int n = 0; n < maxMessagesPerFrame && incoming.TryDequeue(out m); n++)
            {
                string result;
                try { result = runtime.Remote(m.Text, m.ClientId); }
                catch (Exception e) { Debug.LogError("KindRetargeting remote: remote() threw: " + e.Message, this); continue; }
                object parsed;
                try { parsed = KindJson.Parse(result); }
                catch (FormatException e) { Debug.LogError("KindRetargeting remote: unreadable result of remote(): " + e.Message, this); continue; }
                string reply = KindJson.Member(parsed, "reply") as string;
                string broadcast = KindJson.Member(parsed, "broadcast") as string;
                Client sender;
                if (!string.IsNullOrEmpty(reply) && clients.TryGetValue(m.ClientId, out sender)) Send(sender, reply);
                if (!string.IsNullOrEmpty(broadcast))
                    foreach (var kv in clients) if (kv.Key != m.ClientId) Send(kv.Value, broadcast);
            }
        }

        void OnDisable()
        {
            running = false;
            cancel.Cancel();
            if (listener != null)
            {
                try { listener.Stop(); listener.Close(); } catch (Exception) { }
                listener = null;
            }
            foreach (var kv in clients)
            {
                try { kv.Value.Socket.Abort(); } catch (Exception) { }
                kv.Value.Signal.Release();
            }
            clients.Clear();
        }
    }
}
