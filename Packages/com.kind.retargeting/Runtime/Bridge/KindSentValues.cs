// The last value each public field sent to the hub, so the shells compare their fields every frame and
// send only what changed (as the original KindRetargeting reads its fields every frame, a field written by
// a script at runtime takes effect on the next frame). Unity-free (compiled and run under plain Mono by
// test/unity.fieldsync.mono.test.ts); no allocation after construction.
namespace KindRetargeting
{
    /// <summary>
    /// A fixed number of slots, each the value last sent for one field (or nothing yet). <see cref="Changed(int, double)"/>
    /// is true, and remembers the value, when the slot has nothing yet or another value: the caller sends it
    /// then. Plain compares of doubles (a float or an int/enum widens exactly; a bool is 0/1), no allocation.
    /// </summary>
    public sealed class KindSentValues
    {
        readonly double[] values;
        readonly bool[] known;

        public KindSentValues(int count)
        {
            values = new double[count];
            known = new bool[count];
        }

        /// <summary>The number of slots.</summary>
        public int Count { get { return values.Length; } }

        /// <summary>True (and the value remembered) when <paramref name="slot"/> has nothing yet or another value. NaN equals NaN.</summary>
        public bool Changed(int slot, double value)
        {
            if (known[slot])
            {
                double was = values[slot];
                if (was == value || (double.IsNaN(was) && double.IsNaN(value))) return false;
            }
            values[slot] = value;
            known[slot] = true;
            return true;
        }

        /// <summary>As <see cref="Changed(int, double)"/> for a bool (0/1).</summary>
        public bool Changed(int slot, bool value) { return Changed(slot, value ? 1.0 : 0.0); }

        /// <summary>Remembers <paramref name="value"/> as sent without a compare (the hub set it itself).</summary>
        public void Mark(int slot, double value)
        {
            values[slot] = value;
            known[slot] = true;
        }

        /// <summary>Every slot back to nothing sent: the next compare sends every field (a new hub, a load, a re-enable).</summary>
        public void Forget()
        {
            for (int i = 0; i < known.Length; i++) known[i] = false;
        }
    }
}
