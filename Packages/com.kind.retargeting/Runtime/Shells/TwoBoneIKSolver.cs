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
// - LimbIK.target and LimbIK.bendGoal: NOT WIRED. The hub computes each limb's IK target and bend goal
//   itself every frame from the source; Transforms assigned here are stored and not read.
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
            [Tooltip("IK goal position/rotation. Stored only: the hub computes the target from the source (not wired).")]
            public Transform target;
            [Tooltip("Knee/elbow direction hint. Stored only: the hub computes the bend goal (not wired).")]
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

        void OnDisable() { ReleaseWeights(); }

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

        void Update()
        {
            if (Hub == null || Hub.Driver == null) return;
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
