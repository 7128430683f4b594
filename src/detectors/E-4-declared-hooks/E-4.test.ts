import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

testDetectorFolder('E-4', detectors, import.meta.url);
