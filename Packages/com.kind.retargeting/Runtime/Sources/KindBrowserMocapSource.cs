using System;
using System.Collections.Generic;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>
    /// The webcam mocap page (TsProject/src/web/mocap, served by <c>kind mocap</c>) as the source: the page solves
    /// the pose in the browser and streams it to <c>ws://127.0.0.1:&lt;port&gt;/source</c> of the scene's
    /// <see cref="RetargetingRemoteController"/> (its KindWebSocketServer, with its token and allowed origins:
    /// add the page's origin, e.g. <c>http://127.0.0.1:8066</c>, to its Allowed Origins). Open the page with
    /// <c>?live=ws://127.0.0.1:64212/source</c> (and <c>&amp;token=...</c>). Messages and checks:
    /// <see cref="KindMocapStream"/> (src/mocap/STREAM.md).
    /// <para>On the first skeleton message the bones are built as transforms under this GameObject (parents
    /// first, rest offsets mirrored into Unity's left-handed frame: position (-x, y, z), rotation
    /// (x, -y, -z, w), as the bridge mirrors) and <see cref="IsReady"/> turns true, so the hubs reading this
    /// source start, reading that frame's rest T-pose (no pose is applied in the frame a skeleton arrives). A
    /// later skeleton message with the same bones and parents (a re-calibration) puts the bones back in the new
    /// rest and restarts the CustomRetargetingScripts reading this source (RestartHub), as <c>kind live</c>
    /// rebuilds its hubs; other bones are refused with a warning (Bones is fixed once ready). Every Update
    /// (execution order -100, before the hubs) applies the latest pose: local rotations and the hips' local
    /// position, copied into preallocated arrays (no allocation per frame).</para>
    /// </summary>
    [AddComponentMenu("Kind Retargeting/Source: Browser Mocap")]
    public class KindBrowserMocapSource : KindPoseSource, IKindConfidenceSource
    {
        [Tooltip("The remote controller whose server takes the page's stream on /source. Empty: the first one in the scene.")]
        public RetargetingRemoteController remote;

        [Tooltip("Add capsules on the bones so the skeleton can be seen (it has no mesh).")]
        public bool showBones = true;

        [Tooltip("Capsule radius of the shown bones, metres.")]
        public float boneRadius = 0.03f;

        readonly KindMocapStream stream = new KindMocapStream();
        List<Transform> bones;
        int[] humanoid;
        KindMocapStream.Skeleton built;
        uint applied;
        long seen;
        float[] rotations, confidence;
        readonly float[] hips = new float[3];
        byte[] states;

        public override bool IsReady { get { return bones != null; } }
        public override IList<Transform> Bones { get { return bones; } }
        public override int[] Humanoid { get { return humanoid; } }
        public override string SourceName { get { return "browser mocap"; } }

        /// <summary>The receiver (counters: Frames, Malformed, Lost, LastRefusal).</summary>
        public KindMocapStream Stream { get { return stream; } }
        /// <summary>
        /// Confidence per bone of the last applied pose, [0, 1] (null before the first skeleton; all 1 for the
        /// rest T-pose shown when a skeleton arrives). Sent to the hubs as the input's confidence tail.
        /// </summary>
        public float[] Confidence { get { return confidence; } }
        /// <summary>State per bone of the last applied pose: 0 measured, 1 held, 2 filled (null before).</summary>
        public byte[] States { get { return states; } }
        /// <summary>The page's frame number and time (ms) of the last applied pose.</summary>
        public uint FrameNumber { get; private set; }
        public double FrameTimeMs { get; private set; }

        void OnEnable()
        {
            if (remote == null) remote = FindObjectOfType<RetargetingRemoteController>();
            if (remote == null)
            {
                Debug.LogError("KindRetargeting browser mocap: no RetargetingRemoteController in the scene to take the page's stream", this);
                return;
            }
            remote.AttachStream(stream);
        }

        void OnDisable()
        {
            if (remote != null) remote.AttachStream(null);
        }

        void Update()
        {
            KindMocapStream.Skeleton s = stream.CurrentSkeleton;
            if (s == null) return;
            // a (new) skeleton: this frame shows its rest T-pose, so hubs created now read it as the rest
            if (s != built) { Build(s); return; }
            uint frame;
            double time, sent;
            if (!stream.TryTakePose(s.Id, ref seen, rotations, hips, confidence, states, out frame, out time, out sent)) return;
            int n = bones.Count;
            for (int i = 0; i < n; i++)
                bones[i].localRotation = new Quaternion(rotations[4 * i], -rotations[4 * i + 1], -rotations[4 * i + 2], rotations[4 * i + 3]);
            bones[0].localPosition = new Vector3(-hips[0], hips[1], hips[2]);
            FrameNumber = frame;
            FrameTimeMs = time;
        }

        /// <summary>First skeleton: the transforms; a re-calibration with the same bones: the new offsets.</summary>
        bool Build(KindMocapStream.Skeleton s)
        {
            int n = s.Bones.Length;
            if (bones != null)
            {
                bool same = n == bones.Count;
                for (int i = 0; same && i < n; i++) same = s.Bones[i] == built.Bones[i] && s.Parents[i] == built.Parents[i];
                if (!same)
                {
                    if (applied != s.Id) Debug.LogWarning("KindRetargeting browser mocap: skeleton " + s.Id + " has other bones than the one the hubs use; ignored (restart to take it)", this);
                    applied = s.Id;
                    return false;
                }
                for (int i = 0; i < n; i++)
                {
                    bones[i].localPosition = new Vector3(-s.Offsets[3 * i], s.Offsets[3 * i + 1], s.Offsets[3 * i + 2]);
                    bones[i].localRotation = Quaternion.identity;
                }
                for (int i = 0; i < n; i++) confidence[i] = 1f; // the rest T-pose: every bone seen
                built = s;
                applied = s.Id;
                seen = 0;
                // the hubs reading this source start again on the new rest (as kind live rebuilds its hubs)
                foreach (CustomRetargetingScript hub in FindObjectsOfType<CustomRetargetingScript>())
                    if (hub.source == this) hub.RestartHub();
                return true;
            }
            var map = new int[KindBridgeLayout.HumanBoneCount];
            for (int h = 0; h < map.Length; h++) map[h] = -1;
            for (int i = 0; i < n; i++)
            {
                HumanBodyBones hb;
                if (!Enum.IsDefined(typeof(HumanBodyBones), s.Bones[i]) || (hb = (HumanBodyBones)Enum.Parse(typeof(HumanBodyBones), s.Bones[i])) == HumanBodyBones.LastBone)
                {
                    if (applied != s.Id) Debug.LogWarning("KindRetargeting browser mocap: bone '" + s.Bones[i] + "' is no HumanBodyBones name; skeleton " + s.Id + " ignored", this);
                    applied = s.Id;
                    return false;
                }
                map[(int)hb] = i;
            }
            var list = new List<Transform>(n);
            for (int i = 0; i < n; i++)
            {
                Transform parent = s.Parents[i] < 0 ? transform : list[s.Parents[i]];
                var t = new GameObject(s.Bones[i]).transform;
                t.SetParent(parent, false);
                t.localPosition = new Vector3(-s.Offsets[3 * i], s.Offsets[3 * i + 1], s.Offsets[3 * i + 2]);
                t.localRotation = Quaternion.identity;
                list.Add(t);
            }
            rotations = new float[4 * n];
            confidence = new float[n];
            for (int i = 0; i < n; i++) confidence[i] = 1f; // the rest T-pose: every bone seen
            states = new byte[n];
            humanoid = map;
            bones = list;
            built = s;
            applied = s.Id;
            if (showBones) KindCodeHumanoid.AddShapes(list, boneRadius);
            return true;
        }
    }
}
