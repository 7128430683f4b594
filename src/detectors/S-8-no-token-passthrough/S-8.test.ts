import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testLineMarks } from '../../../test/support/line-marks.js';

testDetectorFolder('S-8', detectors, import.meta.url);
testLineMarks('S-8', detectors, import.meta.url);
