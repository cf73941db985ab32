// The original's TwoBoneIKSolver as a C# facade: the solver itself is TypeScript (src/ik, run by the hub;
// FinalIK-free as in the original). This component keeps the original's members so code written for it
// compiles: one LimbIK per limb (target, bendGoal, positionWeight, rotationWeight, bendGoalWeight) and
// CalculateAutoFloorHeight(comfortRatio).
//
// What reaches the TypeScript solver (README "Migrating from the original components"):
// - CalculateAutoFloorHeight: yes, through the bridge's autoFloorHeight command (the hub computes the
//   floor from the avatar's left leg and sets floorHeight; the value is returned and copied into
//   CustomRetargetingScript.floorHeight).
// - the LimbIK weights (positionWeight, rotationWeight, bendGoalWeight): yes, while driveWeights is on:
//   sent with the bridge's ikWeights command when they change (no command, no garbage, when they do
//   not), replacing the weights the hub's limb-weight rules compute (as the original's solver uses the
//   weights its LimbWeightController writes into the LimbIK); off (the default): the hub's own weights,
//   copied into positionWeight/rotationWeight each frame when readBackWeights is on (through ikState: a
//   JSON reply per frame, allocates).
// - LimbIK.target and LimbIK.bendGoal: yes, when assigned: their positions are sent with the bridge's
//   ikGoals command (in the target root's frame, as ikState gives them) whenever they move, and the hub
//   aims the limb there instead of at its own target from the source (a leg's bend goal also turns on
//   its bendGoalWeight with driveWeights); unassigned (null): the hub's own. A moving Transform costs a
//   command (and its garbage) per frame.
// - LimbIK.target's rotation: yes, with the target (ikGoals "rotation", in the same frame, sent when it
//   turns): the end bone (hand/foot) takes it by rotationWeight (the solver slerps the end bone's world
//   rotation from FK to it: 0 keeps FK, 1 gives the target's rotation), as the original's "end 회전은
//   rotationWeight로 Slerp". rotationWeight is the hub's own limb weight unless driveWeights is on.
//   A bendGoal's rotation is not used (only its position is a hint).
using System;
using System.Collections.Generic;
using UnityEngine;

namespace KindRetargeting
{
    /// <summary>The original's IK solver component: a facade over the hub's TypeScript IK (see the file header).</summary>
    [RequireComponent(typeof(CustomRetargetingScript))]
    [AddComponentMenu("Kind Retargeting/Two Bone IK Solver")]
    public class TwoBoneIKSolver : MonoBehaviour
    {
        /// <summary>One limb's IK settings, with the original's fields (seed "LimbIK 구조").</summary>
        [Serializable]
        public class LimbIK
        {
            [Tooltip("IK goal: when set, the limb aims at its position instead of at the hub's target from the source, and the hand/foot takes its rotation by rotationWeight.")]
            public Transform target;
            [Tooltip("Knee/elbow direction hint (position): when set, replaces the hub's bend goal.")]
            public Transform bendGoal;
            [Tooltip("Position IK weight (FK <-> IK; 0 skips the limb's IK). Sent while driveWeights; else, with readBackWeights, the hub's weight of the last frame.")]
            [Range(0f, 1f)] public float positionWeight = 1f;
            [Tooltip("End bone rotation IK weight. Sent while driveWeights; else, with readBackWeights, the hub's.")]
            [Range(0f, 1f)] public float rotationWeight = 1f;
            [Tooltip("Bend goal weight (how far the elbow/knee turns toward the hub's bend goal). Sent while driveWeights.")]
            [Range(0f, 1f)] public float bendGoalWeight = 1f;
        }

        public LimbIK leftArm = new LimbIK();
        public LimbIK rightArm = new LimbIK();
        public LimbIK leftLeg = new LimbIK();
        public LimbIK rightLeg = new LimbIK();

        [Tooltip("Send the LimbIK weights to the hub (they replace its limb-weight rules) when they change. Off: the hub's own weights.")]
        public bool driveWeights;
        [Tooltip("While driveWeights is off: copy the hub's IK weights into positionWeight/rotationWeight every frame (one ikState command per frame: allocates).")]
        public bool readBackWeights;

        readonly float[] sentWeights = new float[12];
        int sentHandle = -1;      // the hub the weights were sent to (-1: none)
        bool overriding;          // the hub holds weights from here
        readonly Vector3[] sentGoals = new Vector3[8];
        readonly bool[] sentGoalSet = new bool[8];
        readonly Quaternion[] sentRotations = new Quaternion[4]; // per limb, the target's rotation sent (while its target is set)
        int goalsHandle = -1;     // the hub the goals were sent to

        CustomRetargetingScript hub;
        CustomRetargetingScript Hub { get { if (hub == null) hub = GetComponent<CustomRetargetingScript>(); return hub; } }

        /// <summary>The four limbs in the hub's order: left arm, right arm, left leg, right leg.</summary>
        public LimbIK[] Limbs { get { return new[] { leftArm, rightArm, leftLeg, rightLeg }; } }

        /// <summary>
        /// Automatic floor height from the left leg: the floor at which the avatar's legs, in the last
        /// frame's pose, are extended to <paramref name="comfortRatio"/> (0..1] of their length. The hub sets
        /// it as its floorHeight (bridge command autoFloorHeight); it is copied into
        /// CustomRetargetingScript.floorHeight and returned. Without a running hub (or on a refusal, logged)
        /// the current floorHeight is returned unchanged.
        /// </summary>
        public float CalculateAutoFloorHeight(float comfortRatio)
        {
            var h = Hub;
            if (h == null) return 0f;
            string reply = h.Command("{\"action\":\"autoFloorHeight\",\"comfortRatio\":" + KindJson.Number(comfortRatio) + "}");
            if (reply == null) return h.floorHeight;
            object o = KindJson.Parse(reply);
            object v = KindJson.Member(o, "floorHeight");
            if (!KindJson.IsOk(o) || !(v is double)) return h.floorHeight;
            h.floorHeight = (float)(double)v;
            h.MarkFloorHeightSent();
            return h.floorHeight;
        }

        void OnDisable()
        {
            ReleaseWeights();
            bool any = false;
            for (int i = 0; i < 8; i++) { any |= sentGoalSet[i]; sentGoalSet[i] = false; }
            if (any && Hub != null && Hub.Driver != null)
                Hub.Driver.CommandLogged("{\"action\":\"ikGoals\",\"limbs\":[null,null,null,null]}", this);
            goalsHandle = -1;
        }

        /// <summary>Gives the weights back to the hub's own rules (ikWeights with nulls).</summary>
        void ReleaseWeights()
        {
            if (!overriding) return;
            overriding = false;
            sentHandle = -1;
            if (Hub != null && Hub.Driver != null) Hub.Driver.CommandLogged("{\"action\":\"ikWeights\",\"limbs\":[null,null,null,null]}", this);
        }

        /// <summary>Sends the LimbIK weights when they (or the hub) changed since the last send.</summary>
        void SendWeights()
        {
            var d = Hub.Driver;
            LimbIK[] all = { leftArm, rightArm, leftLeg, rightLeg };
            bool changed = sentHandle != d.Handle;
            for (int l = 0; l < 4 && !changed; l++)
                changed = sentWeights[3 * l] != all[l].positionWeight || sentWeights[3 * l + 1] != all[l].rotationWeight || sentWeights[3 * l + 2] != all[l].bendGoalWeight;
            if (!changed) return;
            var sb = new System.Text.StringBuilder("{\"action\":\"ikWeights\",\"limbs\":[");
            for (int l = 0; l < 4; l++)
            {
                float p = Mathf.Clamp01(all[l].positionWeight), r = Mathf.Clamp01(all[l].rotationWeight), b = Mathf.Clamp01(all[l].bendGoalWeight);
                sb.Append(l == 0 ? "[" : ",[").Append(KindJson.Number(p)).Append(',').Append(KindJson.Number(r)).Append(',').Append(KindJson.Number(b)).Append(']');
                sentWeights[3 * l] = all[l].positionWeight;
                sentWeights[3 * l + 1] = all[l].rotationWeight;
                sentWeights[3 * l + 2] = all[l].bendGoalWeight;
            }
            sb.Append("]}");
            sentHandle = d.Handle;
            overriding = true;
            d.CommandLogged(sb.ToString(), this);
        }

        /// <summary>A position in the frame the hub works in (the target root's when the driver sends root-relative poses).</summary>
        Vector3 HubFrame(Vector3 world)
        {
            var h = Hub;
            if (!h.Driver.SourceInRootSpace || h.targetAnimator == null) return world;
            Transform root = h.targetAnimator.transform;
            return Quaternion.Inverse(root.rotation) * (world - root.position);
        }

        /// <summary>A rotation in the frame the hub works in (see <see cref="HubFrame"/>).</summary>
        Quaternion HubFrameRotation(Quaternion world)
        {
            var h = Hub;
            if (!h.Driver.SourceInRootSpace || h.targetAnimator == null) return world;
            return Quaternion.Inverse(h.targetAnimator.transform.rotation) * world;
        }

        /// <summary>Sends the assigned targets (position and rotation) and bend goals (ikGoals) when one moved, turned, was assigned or cleared.</summary>
        void SendGoals()
        {
            var d = Hub.Driver;
            LimbIK[] all = { leftArm, rightArm, leftLeg, rightLeg };
            bool changed = goalsHandle != d.Handle;
            for (int i = 0; i < 8; i++)
            {
                Transform t = i % 2 == 0 ? all[i / 2].target : all[i / 2].bendGoal;
                bool set = t != null;
                Vector3 p = set ? HubFrame(t.position) : Vector3.zero;
                if (set != sentGoalSet[i] || (set && (p.x != sentGoals[i].x || p.y != sentGoals[i].y || p.z != sentGoals[i].z))) changed = true;
                sentGoalSet[i] = set;
                sentGoals[i] = p;
                if (i % 2 == 0 && set)
                {
                    Quaternion q = HubFrameRotation(t.rotation);
                    Quaternion o = sentRotations[i / 2];
                    if (q.x != o.x || q.y != o.y || q.z != o.z || q.w != o.w) changed = true;
                    sentRotations[i / 2] = q;
                }
            }
            if (!changed) return;
            bool any = false;
            for (int i = 0; i < 8; i++) any |= sentGoalSet[i];
            if (!any && goalsHandle != d.Handle) { goalsHandle = d.Handle; return; } // nothing set, nothing to clear
            var sb = new System.Text.StringBuilder("{\"action\":\"ikGoals\",\"limbs\":[");
            for (int l = 0; l < 4; l++)
            {
                sb.Append(l == 0 ? "{" : ",{");
                for (int k = 0; k < 2; k++)
                {
                    int i = 2 * l + k;
                    sb.Append(k == 0 ? "\"target\":" : ",\"bendGoal\":");
                    if (!sentGoalSet[i]) { sb.Append("null"); continue; }
                    Vector3 p = sentGoals[i];
                    sb.Append('[').Append(KindJson.Number(p.x)).Append(',').Append(KindJson.Number(p.y)).Append(',').Append(KindJson.Number(p.z)).Append(']');
                }
                sb.Append(",\"rotation\":");
                if (!sentGoalSet[2 * l]) sb.Append("null");
                else
                {
                    Quaternion q = sentRotations[l];
                    sb.Append('[').Append(KindJson.Number(q.x)).Append(',').Append(KindJson.Number(q.y)).Append(',').Append(KindJson.Number(q.z)).Append(',').Append(KindJson.Number(q.w)).Append(']');
                }
                sb.Append('}');
            }
            sb.Append("]}");
            goalsHandle = d.Handle;
            d.CommandLogged(sb.ToString(), this);
        }

        void Update()
        {
            if (Hub == null || Hub.Driver == null) return;
            SendGoals();
            if (driveWeights) { SendWeights(); return; }
            ReleaseWeights();
            if (!readBackWeights) return;
            string reply = Hub.Driver.Command("{\"action\":\"ikState\"}");
            object state;
            try { state = KindJson.Parse(reply); }
            catch (FormatException) { return; }
            var limbs = KindJson.Member(state, "limbs") as List<object>;
            if (limbs == null) return;
            LimbIK[] all = Limbs;
            for (int l = 0; l < limbs.Count && l < 4; l++)
            {
                object w = KindJson.Member(limbs[l], "weight");
                if (!(w is double)) continue;
                all[l].positionWeight = (float)(double)w;
                all[l].rotationWeight = (float)(double)w;
            }
        }
    }
}
