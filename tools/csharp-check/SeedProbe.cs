// =====================================================================================================
// SEED PROBE — compiled by tools/check-csharp.mjs as a user script (Assembly-CSharp) against the package,
// in every flavour, next to ApiProbe.cs. Written from the original KindRetargeting's design document
// (../shared/seeds/002_d5df44739e4153ee.txt, Korean; issue 21 part 2): every public name the seed gives,
// used with the type the seed gives (or, where the seed gives no type, the type its text implies; noted).
// Each line cites the seed line it comes from ("seed L<n>"). Nothing here runs.
// RetargetingRemoteController.registeredCharacters (seed L291) is a CustomRetargetingScript[] (the seed
// registers characters; CustomRetargetingScript is the character component): when non-empty the remote
// protocol serves only those (their names go to the bundle's remote() as its scope; TsProject
// test/remote.scope.test.ts). Not run in Unity.
// =====================================================================================================
using KindRetargeting;
using KindRetargeting.EnumsList;
using UnityEngine;

public static class KindRetargetingSeedProbe
{
    public static void Probe(CustomRetargetingScript crs, TwoBoneIKSolver ik, LimbWeightController lw,
        FingerShapedController fs, PropLocationController plc, SimplePoseTransfer spt, OffsetTransfer ot,
        IKTargetGizmo gizmo, PropTypeController ptc, RetargetingRemoteController remote, GameObject prop, Transform t)
    {
        // ---- CustomRetargetingScript: Inspector parameters (seed L86-L91) -----------------------------
        float f;
        f = crs.footFrontBackOffset; crs.footFrontBackOffset = f;          // seed L86
        f = crs.footInOutOffset; crs.footInOutOffset = f;                  // seed L87
        f = crs.floorHeight; crs.floorHeight = f;                          // seed L88
        f = crs.headRotationOffsetX; crs.headRotationOffsetX = f;          // seed L89 headRotationOffsetX/Y/Z
        f = crs.headRotationOffsetY; crs.headRotationOffsetY = f;
        f = crs.headRotationOffsetZ; crs.headRotationOffsetZ = f;
        f = crs.avatarScale; crs.avatarScale = f;                          // seed L90
        f = crs.headScale; crs.headScale = f;                              // seed L91

        // ---- calibration / settings methods (seed L95-L100) -----------------------------------------
        crs.I_PoseCalibration();                                           // seed L95
        crs.ResetPoseAndCache();                                           // seed L96
        crs.CalibrateHeadToForward();                                      // seed L97
        crs.SaveSettings();                                                // seed L98
        crs.LoadSettings();                                                // seed L99
        bool b = crs.HasCachedSettings();                                  // seed L100

        // ---- external API (seed L104-L106) ----------------------------------------------------------
        f = crs.GetAvatarScale(); crs.SetAvatarScale(f); crs.ResetScale(); // seed L104
        f = crs.GetHeadScale(); crs.SetHeadScale(f); crs.ResetHeadScale(); // seed L105
        crs.SetFingerShapedEnabled(b);                                     // seed L106

        // ---- ChairSeatHeightOffset (seed L176: "crs.ChairSeatHeightOffset로 전달"; a property) -------
        f = crs.ChairSeatHeightOffset; crs.ChairSeatHeightOffset = f;      // seed L176, L112 (saved)

        // ---- the checklist's fields (seed L288-L290) -------------------------------------------------
        KindPoseSource src = crs.optitrackSource; crs.optitrackSource = src; // seed L288 (the project's source component)
        TwoBoneIKSolver solver = crs.ikSolver; crs.ikSolver = solver;      // seed L290
        LimbWeightController limbWeight = crs.limbWeight; crs.limbWeight = limbWeight; // seed L290
        FingerShapedController fingerShaped = crs.fingerShaped; crs.fingerShaped = fingerShaped; // seed L290
        PropLocationController propLocation = crs.propLocation; crs.propLocation = propLocation; // seed L290
        b = crs.fingerShaped.enabled;                                      // seed L312 "fingerShaped.enabled"

        // ---- TwoBoneIKSolver, LimbIK (seed L133-L138, L151). The seed names the four limbs only as
        //      "양팔/양다리 4개 사지" (L129): leftArm/rightArm/leftLeg/rightLeg are this package's names.
        TwoBoneIKSolver.LimbIK limb = ik.leftArm;                          // seed L133 "class LimbIK"
        limb.target = t;                                                   // seed L134 Transform target
        limb.bendGoal = t;                                                 // seed L135 Transform bendGoal
        limb.positionWeight = 1f;                                          // seed L136 float positionWeight
        limb.rotationWeight = 1f;                                          // seed L137 float rotationWeight
        limb.bendGoalWeight = 1f;                                          // seed L138 float bendGoalWeight
        Transform tt = ik.rightArm.target; tt = ik.leftLeg.bendGoal; f = ik.rightLeg.positionWeight;
        ik.CalculateAutoFloorHeight(0.5f);                                 // seed L151 CalculateAutoFloorHeight(comfortRatio)

        // ---- LimbWeightController (seed L155-L178, L313) ---------------------------------------------
        float[] w;
        w = lw.leftArmEndWeights; w = lw.rightArmEndWeights;               // seed L159 "*ArmEndWeights"
        w = lw.leftLegEndWeights; w = lw.rightLegEndWeights;               // seed L159 "*LegEndWeights"
        w = lw.hipsWeights;                                                // seed L159 hipsWeights
        f = lw.hipsWeights[0] + lw.leftArmEndWeights[1];                   // seed L160-L161 layers [0], [1]
        f = lw.HipsWeightOffset;                                           // seed L80 HipsWeightOffset(LimbWeight)
        f = lw.weightSmoothSpeed;                                          // seed L155 weightSmoothSpeed
        b = lw.enableLeftArmIK; b = lw.enableRightArmIK;                   // seed L178
        // seed L313 "footHeight*Threshold": the seed gives only the pattern; this package's two names
        f = lw.footHeightMinThreshold; f = lw.footHeightMaxThreshold;

        // ---- FingerShapedController (seed L194-L196) --------------------------------------------------
        f = fs.leftThumbCurl + fs.leftIndexCurl + fs.leftMiddleCurl + fs.leftRingCurl + fs.leftPinkyCurl + fs.leftSpreadFingers; // seed L194
        f = fs.rightThumbCurl + fs.rightIndexCurl + fs.rightMiddleCurl + fs.rightRingCurl + fs.rightPinkyCurl + fs.rightSpreadFingers; // seed L194
        b = fs.enabled; b = fs.leftHandEnabled; b = fs.rightHandEnabled;   // seed L196

        // ---- PropLocationController (seed L213-L216) --------------------------------------------------
        plc.MoveToLeftHand(prop); plc.MoveToRightHand(prop); plc.MoveToHead(prop); // seed L213
        plc.DetachProp(prop);                                              // seed L214
        tt = plc.GetLeftHandOffset(); tt = plc.GetRightHandOffset(); tt = plc.GetHeadOffset(); // seed L215
        GameObject[] l = plc.GetLeftHandProps();                           // seed L216 GameObject[]
        GameObject[] r = plc.GetRightHandProps();                          // seed L216
        GameObject[] h = plc.GetHeadProps();                               // seed L216
#if UNITY_EDITOR
        plc.MoveToLeftHand(); plc.MoveToRightHand(); plc.MoveToHead(); plc.DetachProp(); // seed L218 (Editor overloads)
#endif

        // ---- SimplePoseTransfer (seed L220-L239, L302-L303) --------------------------------------------
        SimplePoseTransfer.TargetEntry[] entries = spt.targets;           // seed L224 TargetEntry, L303 targets[]
        SimplePoseTransfer.TargetEntry e = entries[0];
        Animator a = e.animator;                                           // seed L224 animator
        Vector3 hipOffset = e.hipOffset;                                   // seed L224 hipOffset (world)
        b = e.syncRootScale;                                               // seed L224, L239 syncRootScale
        spt.targets = new[] { new SimplePoseTransfer.TargetEntry { animator = a, hipOffset = hipOffset, syncRootScale = b } };
        a = spt.sourceBone; spt.sourceBone = a;                            // seed L302 "sourceBone = ... Animator"
        b = spt.transferHeadScale;                                         // seed L238 transferHeadScale
        spt.Init();                                                        // seed L314 Init()

        // ---- components without named members in the seed: OffsetTransfer (L241), IKTargetGizmo (L15) --
        MonoBehaviour m = ot; m = gizmo; m = remote;

        // ---- PropTypeController, enums (seed L295, L277-L279: namespace KindRetargeting.EnumsList) ------
        PropType pt = ptc.propType; ptc.propType = PropType.Chair;         // seed L295 "propType 설정", L296
        FingerCopyMode[] modes = { FingerCopyMode.None, FingerCopyMode.MuscleData, FingerCopyMode.Rotation }; // seed L278
        PropType[] types = { PropType.None, PropType.Object, PropType.Chair, PropType.Hand }; // seed L279

        // ---- RetargetingRemoteController + registeredCharacters (seed L291 "registeredCharacters에 캐릭터 등록") --
        CustomRetargetingScript[] reg = remote.registeredCharacters;       // seed L291
        remote.registeredCharacters = new[] { crs };                       // seed L291 (register a character)
        System.GC.KeepAlive(new object[] { l, r, h, tt, w, pt, modes, types, m, e, reg });
    }

    // ---- subclassing: no component class is sealed (code for the original may derive from them) -------
    class MyRetargeting : CustomRetargetingScript { }
    class MySolver : TwoBoneIKSolver { }
    class MyLimbWeight : LimbWeightController { }
    class MyFingers : FingerShapedController { }
    class MyProps : PropLocationController { }
    class MyTransfer : SimplePoseTransfer { }
    class MyOffset : OffsetTransfer { }
    class MyGizmo : IKTargetGizmo { }
    class MyPropType : PropTypeController { }
    class MyRemote : RetargetingRemoteController { }
}
