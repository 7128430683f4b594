import staticPart from './static.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testMarkers } from '../../../test/support/markers.js';

// Recorded servers (a dynamic part) and py-* fixtures (a Python part) in this folder are not this part's cases.
testDetectorFolder('S-24', [staticPart], import.meta.url, { skipServerFixtures: true });
testMarkers('S-24', [staticPart], import.meta.url);
