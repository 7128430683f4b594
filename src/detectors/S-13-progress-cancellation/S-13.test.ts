import staticPart from './static.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testMarkers } from '../../../test/support/markers.js';
import { testPythonLineMarks } from '../../../test/support/line-marks.js';

// Recorded servers (a dynamic part) in this folder are not this part's cases; py-* fixtures are its Python reading (python.ts).
testDetectorFolder('S-13', [staticPart], import.meta.url, { skipServerFixtures: true });
testMarkers('S-13', [staticPart], import.meta.url);
testPythonLineMarks('S-13', [staticPart], import.meta.url);
