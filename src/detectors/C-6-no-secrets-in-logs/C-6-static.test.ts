import staticPart from './static.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testMarkers } from '../../../test/support/markers.js';
import { testPythonLineMarks } from '../../../test/support/line-marks.js';

// The recorded servers of this folder belong to the dynamic part (their expect.json pins its message ids);
// the py-* fixtures are the static part's Python reading (python.ts).
testDetectorFolder('C-6', [staticPart], import.meta.url, { skipServerFixtures: true });
testMarkers('C-6', [staticPart], import.meta.url);
testPythonLineMarks('C-6', [staticPart], import.meta.url);
