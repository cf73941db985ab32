// =====================================================================================================
// API PROBE — compiled by tools/check-csharp.mjs as a user script (Assembly-CSharp) against the package,
// in every flavour. It uses every public member the original KindRetargeting's users call (issue 14, the
// package README's migration table) with its exact signature: a method group converted to a delegate
// type pins parameters and return type, `ref` pins a field (not a property) and its type. A member that
// is missing, renamed or retyped makes this file fail to compile, so the check fails. Nothing here runs.
// =====================================================================================================
using System;
using KindRetargeting;
using KindRetargeting.EnumsList;
using UnityEngine;

public static class KindRetargetingApiProbe
{
    static void Field<T>(ref T field) { }

    public static void Probe(CustomRetargetingScript c, PropLocationController p, SimplePoseTransfer s, OffsetTransfer o,
        LimbWeightController l, FingerShapedController f, PropTypeController t, IKTargetGizmo g, GameObject go)
    {
        Action a;
        Func<bool> fb;
        Func<float> ff;
        Action<float> af;
        Action<bool> ab;
        Action<GameObject> ag;
        Func<Transform> ft;
        Func<GameObject[]> fl; // the original's GameObject[] (issue 21; was List<GameObject>)

        // CustomRetargetingScript
        a = c.I_PoseCalibration;
        a = c.ResetPoseAndCache;
        a = c.CalibrateHeadToForward;
        a = c.SaveSettings;
        a = c.LoadSettings;
        fb = c.HasCachedSettings;
        ff = c.GetAvatarScale;
        af = c.SetAvatarScale;
        a = c.ResetScale;
        ff = c.GetHeadScale;
        af = c.SetHeadScale;
        a = c.ResetHeadScale;
        ab = c.SetFingerShapedEnabled;
        Field<float>(ref c.footFrontBackOffset);
        Field<float>(ref c.footInOutOffset);
        Field<float>(ref c.floorHeight);
        Field<float>(ref c.headRotationOffsetX);
        Field<float>(ref c.headRotationOffsetY);
        Field<float>(ref c.headRotationOffsetZ);
        Field<float>(ref c.avatarScale);
        Field<float>(ref c.headScale);
        Field<FingerCopyMode>(ref c.fingerCopyMode);

        // PropLocationController
        ag = p.MoveToLeftHand;
        ag = p.MoveToRightHand;
        ag = p.MoveToHead;
        ag = p.DetachProp;
        ft = p.GetLeftHandOffset;
        ft = p.GetRightHandOffset;
        ft = p.GetHeadOffset;
        fl = p.GetLeftHandProps;
        fl = p.GetRightHandProps;
        fl = p.GetHeadProps;
#if UNITY_EDITOR
        a = p.MoveToLeftHand;
        a = p.MoveToRightHand;
        a = p.MoveToHead;
        a = p.DetachProp;
#endif

        // SimplePoseTransfer
        SimplePoseTransfer.TargetEntry[] targets = s.targets; // the original's TargetEntry (issue 21)
        Field<Animator>(ref targets[0].animator);
        Field<Vector3>(ref targets[0].hipOffset);
        Field<bool>(ref targets[0].syncRootScale);
        Field<bool>(ref s.transferHeadScale);
        a = s.Init;

        // OffsetTransfer, LimbWeightController
        Field<Animator>(ref o.source);
        Field<Animator>(ref o.target);
        Field<bool>(ref l.enableLeftArmIK);
        Field<bool>(ref l.enableRightArmIK);
        Field<float>(ref l.weightSmoothSpeed);

        // FingerShapedController
        bool enabled = f.enabled;
        f.enabled = enabled;
        Field<bool>(ref f.leftHandEnabled);
        Field<bool>(ref f.rightHandEnabled);
        Field<float>(ref f.leftThumbCurl);
        Field<float>(ref f.leftIndexCurl);
        Field<float>(ref f.leftMiddleCurl);
        Field<float>(ref f.leftRingCurl);
        Field<float>(ref f.leftPinkyCurl);
        Field<float>(ref f.leftSpreadFingers);
        Field<float>(ref f.rightThumbCurl);
        Field<float>(ref f.rightIndexCurl);
        Field<float>(ref f.rightMiddleCurl);
        Field<float>(ref f.rightRingCurl);
        Field<float>(ref f.rightPinkyCurl);
        Field<float>(ref f.rightSpreadFingers);

        // PropTypeController and the enums (KindRetargeting.EnumsList)
        Field<PropType>(ref t.propType);
        FingerCopyMode[] modes = { FingerCopyMode.None, FingerCopyMode.MuscleData, FingerCopyMode.Rotation };
        PropType[] types = { PropType.None, PropType.Object, PropType.Chair, PropType.Hand };

        // IKTargetGizmo is a component
        Component gizmo = g;
        GC.KeepAlive(new object[] { a, fb, ff, af, ab, ag, ft, fl, modes, types, gizmo, go });
    }
}
