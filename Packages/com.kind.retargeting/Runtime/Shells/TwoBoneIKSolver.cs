// The original's TwoBoneIKSolver as a C# facade: the solver itself is TypeScript (src/ik, run by the hub;
// FinalIK-free as in the original). This component keeps the original's members so code written for it
// compiles: one LimbIK per limb (target, bendGoal, positionWeight, rotationWeight, bendGoalWeight) and
// CalculateAutoFloorHeight(comfortRatio).
//
// What reaches the TypeScript solver (README "Migrating from the original components"):
// - CalculateAutoFloorHeight: yes, through the bridge's autoFloorHeight command (the hub computes the
//   floor from the avatar's left leg and sets floorHeight; the value is returned and copied into
//   CustomRetargetingScript.floorHeight).
// - the LimbIK fields: NOT WIRED. The hub computes each limb's IK target, bend goal and weights itself
//   every frame (from the source and the limb-weight rules); values written here are stored and not sent.
//   Each Update copies the hub's last IK weights into positionWeight/rotationWeight (read back through the
//   ikState command, only when readBackWeights is on: it allocates a JSON reply per frame).
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
            [Tooltip("Position IK weight (FK <-> IK). With readBackWeights: the hub's weight of the last frame.")]
            [Range(0f, 1f)] public float positionWeight;
            [Tooltip("End bone rotation IK weight. With readBackWeights: the hub's weight of the last frame.")]
            [Range(0f, 1f)] public float rotationWeight;
            [Tooltip("Bend goal weight. Stored only (not wired).")]
            [Range(0f, 1f)] public float bendGoalWeight;
        }

        public LimbIK leftArm = new LimbIK();
        public LimbIK rightArm = new LimbIK();
        public LimbIK leftLeg = new LimbIK();
        public LimbIK rightLeg = new LimbIK();

        [Tooltip("Copy the hub's IK weights into positionWeight/rotationWeight every frame (one ikState command per frame: allocates).")]
        public bool readBackWeights;

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

        void Update()
        {
            if (!readBackWeights || Hub == null || Hub.Driver == null) return;
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
