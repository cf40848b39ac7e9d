// Trunk's post-build step (one hook: Trunk runs a stage's hooks at the same
// time, and both of these rewrite index.html): the run views' pack and its
// loader (split-manifest.mjs), then the stylesheets as one file
// (merge-css.mjs). Works on Trunk's staging directory, or on the one given.
import { inject } from './split-manifest.mjs';
import { mergeCss } from './merge-css.mjs';

const dir = process.argv[2] || process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('post-build needs a directory (or run it as a Trunk hook)');
inject(dir);
mergeCss(dir);
