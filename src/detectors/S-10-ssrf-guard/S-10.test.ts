import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testLineMarks } from '../../../test/support/line-marks.js';

testDetectorFolder('S-10', detectors, import.meta.url, { skipServerFixtures: true, skipPythonFixtures: true });
testLineMarks('S-10', detectors, import.meta.url);
