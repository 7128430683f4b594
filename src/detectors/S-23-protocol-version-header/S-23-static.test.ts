import staticDetector from './static.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testLineMarks } from '../../../test/support/line-marks.js';

testDetectorFolder('S-23', [staticDetector], import.meta.url, { skipServerFixtures: true, skipPythonFixtures: true });
testLineMarks('S-23', [staticDetector], import.meta.url);
