// The settings saves the remote control asks for (issue 21 part 2). The bundle's remote(text, clientId,
// scope) result names, in its "save" member, the characters whose settings file the host writes now: the
// character of a remote autoCalibrateAll that succeeded (the original's sequence ends with
// "CalibrateHeadToForward() + 저장"; no other action of its remote table saves). RetargetingRemoteController
// collects the names while it hands a frame's messages to remote() and, after the last of them, saves each
// character once (Flush), the way CustomRetargetingScript.AutoCalibrateAll() saves. Unity-free (tested under
// Mono: TsProject/test/unity.remoteSave.mono.test.ts).
using System;
using System.Collections.Generic;

namespace KindRetargeting
{
    /// <summary>Characters whose settings a frame's remote messages asked to save, each once, in the order first asked.</summary>
    public sealed class KindRemoteSaves
    {
        readonly List<string> pending = new List<string>();
        readonly List<string> flushing = new List<string>();

        /// <summary>Names waiting for <see cref="Flush"/>.</summary>
        public int Count { get { return pending.Count; } }

        /// <summary>
        /// Adds the names in the "save" member of a parsed remote() result (<see cref="KindJson.Parse"/>):
        /// an array of strings; a name already waiting is not added again; a missing member, or entries that are
        /// not strings or are empty, add nothing. Returns how many names were added.
        /// </summary>
        public int Collect(object parsedResult)
        {
            var list = KindJson.Member(parsedResult, "save") as List<object>;
            if (list == null) return 0;
            int added = 0;
            foreach (object o in list)
            {
                var name = o as string;
                if (string.IsNullOrEmpty(name) || pending.Contains(name)) continue;
                pending.Add(name);
                added++;
            }
            return added;
        }

        /// <summary>
        /// Calls <paramref name="save"/> once per waiting name, in the order first asked, and forgets them (names
        /// collected during a call wait for the next Flush). A save that throws is passed to
        /// <paramref name="failed"/> (when given) and the others still run. Returns how many saves were called.
        /// </summary>
        public int Flush(Action<string> save, Action<string, Exception> failed)
        {
            if (pending.Count == 0) return 0;
            flushing.Clear();
            flushing.AddRange(pending);
            pending.Clear();
            foreach (string name in flushing)
            {
                try { save(name); }
                catch (Exception e) { if (failed != null) failed(name, e); }
            }
            int n = flushing.Count;
            flushing.Clear();
            return n;
        }
    }
}
