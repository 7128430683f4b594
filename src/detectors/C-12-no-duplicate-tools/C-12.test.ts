import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testLineMarks } from '../../../test/support/line-marks.js';

testDetectorFolder('C-12', detectors, import.meta.url);
testLineMarks('C-12', detectors, import.meta.url);
