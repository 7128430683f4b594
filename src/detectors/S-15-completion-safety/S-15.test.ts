import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

testDetectorFolder('S-15', detectors, import.meta.url);
