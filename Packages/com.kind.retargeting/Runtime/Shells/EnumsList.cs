// The original KindRetargeting's enums, under its namespace, so scripts written for it compile unchanged
// (`using KindRetargeting.EnumsList;`).
namespace KindRetargeting.EnumsList
{
    /// <summary>
    /// How the avatar's fingers are driven (CustomRetargetingScript.fingerCopyMode; the hub's
    /// fingerCopyMode parameter 'none' | 'muscleData' | 'rotation', src/rig/fingersTable.ts):
    /// None: from the finger controls only (FingerShapedController's curls); MuscleData: the source's
    /// finger muscles measured and applied; Rotation: the source's finger rotations copied.
    /// </summary>
    public enum FingerCopyMode { None, MuscleData, Rotation }

    /// <summary>
    /// What a prop is (PropTypeController.propType; src/rig/props.ts PROP_TYPE_NAMES): None: not typed
    /// (attached as an Object; the scene check flags it); Object: held; Chair: seats the hips on it;
    /// Hand: a prop the hand holds with IK.
    /// </summary>
    public enum PropType { None, Object, Chair, Hand }
}
