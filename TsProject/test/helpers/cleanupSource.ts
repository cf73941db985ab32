/**
 * A contact source for the `kind cleanup` tests built on the test-only rule (./cleanupRule.ts), so the
 * command's plumbing is tested apart from the contact detector (src/contact has its own tests).
 */
import type { ContactSourceFactory } from '../../src/cli/contactSource';
import { ruleLabels } from './cleanupRule';

export const testRuleSource: ContactSourceFactory = () => async (clip) => {
  const r = ruleLabels(clip);
  return { left: r.probabilities.left, right: r.probabilities.right, floor: r.floor, model: 'rule' };
};
