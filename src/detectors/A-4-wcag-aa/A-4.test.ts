import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

testDetectorFolder('A-4', detectors, import.meta.url);
