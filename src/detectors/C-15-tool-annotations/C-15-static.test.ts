import staticPart from './static.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testLineMarks } from '../../../test/support/line-marks.js';

// The recorded servers of this folder belong to the dynamic part (their expect.json pins its message ids).
testDetectorFolder('C-15', [staticPart], import.meta.url, { skipServerFixtures: true });
testLineMarks('C-15', [staticPart], import.meta.url, { skipServerFixtures: true });
