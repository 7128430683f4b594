import staticPart from './static.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testLineMarks, testPythonLineMarks } from '../../../test/support/line-marks.js';

// The recorded servers of this folder belong to the dynamic part (their expect.json pins its message ids).
testDetectorFolder('S-12', [staticPart], import.meta.url, { skipServerFixtures: true });
testLineMarks('S-12', [staticPart], import.meta.url, { skipServerFixtures: true });
testPythonLineMarks('S-12', [staticPart], import.meta.url);
